package io.varpulis.support;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one way this project makes background threads: daemon threads with a recognisable
 * name, so a timer or a settling pool never keeps a JVM alive and shows up by name in a
 * thread dump; a thread that an uncaught throw ends says so at ERROR (SPEC section 18: no
 * thread ends without a log line).
 * <p>
 * The executors and schedulers made here are meant to be Spring beans (initialised and
 * shut down by the context). They keep taking tasks after the context began to close and
 * are shut down when the context destroys them, after every lifecycle stopped: a worker
 * draining its pipelines at stop still heartbeats, and a state write confirmed during the
 * drain is still settled: with {@code acceptTasksAfterContextClose}, Spring neither
 * pauses them when the lifecycles stop nor shuts them down early on the context's close
 * event. A task handed over once the context destroyed them is dropped, the first with a
 * WARN naming the executor (the rest at DEBUG): the node is gone, and an exception would
 * only reach the thread that handed it over (a jnats thread completing a PubAck).
 */
public final class DaemonThreads {

    private static final Logger log = LoggerFactory.getLogger(DaemonThreads.class);

    private DaemonThreads() {
    }

    /**
     * @param prefix the thread name prefix, e.g. {@code varpulis-settle}; a {@code -N}
     * suffix is added
     * @return a factory of daemon threads
     */
    public static CustomizableThreadFactory named(String prefix) {
        CustomizableThreadFactory threads = new CustomizableThreadFactory(prefix + "-") {
            @Override
            public Thread createThread(Runnable runnable) {
                Thread thread = super.createThread(runnable);
                thread.setUncaughtExceptionHandler(DaemonThreads::ended);
                return thread;
            }
        };
        threads.setDaemon(true);
        return threads;
    }

    private static void ended(Thread thread, Throwable error) {
        log.error("thread {} ended by an uncaught {}; what it ran stops with it", thread.getName(), error.toString(),
                error);
    }

    /**
     * @param prefix the thread name prefix, e.g. {@code varpulis-heartbeat}; a {@code -N}
     * suffix is added
     * @return a scheduler of one daemon thread (its tasks run one at a time, in order),
     * not initialised yet
     */
    public static ThreadPoolTaskScheduler scheduler(String prefix) {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.setPoolSize(1);
        scheduler.setThreadFactory(named(prefix));
        scheduler.setAcceptTasksAfterContextClose(true);
        scheduler.setRejectedExecutionHandler(dropped(prefix));
        return scheduler;
    }

    /**
     * @param prefix the thread name prefix, e.g. {@code varpulis-fenced-stop}; a
     * {@code -N} suffix is added
     * @param maxThreads {@code 1} for one thread running the tasks in order (the others
     * wait in an unbounded queue); more for a thread per task up to that many (none
     * waits; idle threads end after a minute)
     * @return an executor of daemon threads, not initialised yet
     */
    public static ThreadPoolTaskExecutor executor(String prefix, int maxThreads) {
        ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
        if (maxThreads == 1) {
            executor.setCorePoolSize(1);
            executor.setMaxPoolSize(1);
        }
        else {
            executor.setCorePoolSize(0);
            executor.setMaxPoolSize(maxThreads);
            executor.setQueueCapacity(0);
        }
        executor.setThreadFactory(named(prefix));
        executor.setAcceptTasksAfterContextClose(true);
        executor.setRejectedExecutionHandler(dropped(prefix));
        return executor;
    }

    /**
     * What a pool does with a task once it is shut down: drops it and says so.
     */
    private static RejectedExecutionHandler dropped(String prefix) {
        AtomicBoolean said = new AtomicBoolean();
        return (task, pool) -> {
            if (said.compareAndSet(false, true)) {
                log.warn("{} is shut down (the node is closing): tasks handed over from now on are dropped", prefix);
            }
            else {
                log.debug("{} is shut down: a task dropped", prefix);
            }
        };
    }

}
