package io.varpulis.support;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs its tasks one at a time, in the order they were given, on the threads of a shared
 * executor, holding one of them only while it has tasks: what one pipeline's state does
 * (send, settle, look up) stays in order, and a state that waits holds up no other. A
 * task that throws is logged at WARN and the next one runs.
 */
public final class SerialExecutor implements Executor {

    private static final Logger log = LoggerFactory.getLogger(SerialExecutor.class);

    private final Executor threads;

    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

    private final AtomicBoolean running = new AtomicBoolean();

    /**
     * @param threads the shared executor (one of its threads runs this one's tasks at a
     * time)
     */
    public SerialExecutor(Executor threads) {
        this.threads = threads;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        schedule();
    }

    private void schedule() {
        if (!tasks.isEmpty() && running.compareAndSet(false, true)) {
            threads.execute(this::drain);
        }
    }

    private void drain() {
        try {
            for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
                try {
                    task.run();
                }
                catch (RuntimeException e) {
                    log.warn("a serial task failed: {}", e.toString(), e);
                }
            }
        }
        finally {
            running.set(false);
            schedule();
        }
    }

}
