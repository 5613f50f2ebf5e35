package io.varpulis.support;

import org.junit.jupiter.api.Test;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The executors and schedulers a node's parts run on are Spring beans that keep working
 * while the node's lifecycles stop (a worker draining at stop still heartbeats and still
 * settles its state writes), whatever phase those lifecycles stop in; once the context
 * has destroyed them, a task handed over is dropped, never thrown at the thread that
 * handed it over.
 */
class DaemonThreadsTest {

    @Test
    void aLifecycleStoppingBeforeThemStillRunsTasksOnThem_andATaskAfterTheyAreDestroyedIsDropped() {
        AtomicBoolean executed = new AtomicBoolean();
        AtomicBoolean scheduled = new AtomicBoolean();
        ThreadPoolTaskExecutor executor;
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.registerBean("executor", ThreadPoolTaskExecutor.class, () -> DaemonThreads.executor("t-exec", 1));
            context.registerBean("scheduler", ThreadPoolTaskScheduler.class, () -> DaemonThreads.scheduler("t-sched"));
            // Stops late, as NodeLifecycle does (its phase is below the executors' own).
            context.registerBean("drain", Drain.class, () -> new Drain(context, executed, scheduled));
            context.refresh();
            executor = context.getBean("executor", ThreadPoolTaskExecutor.class);
        }
        assertThat(executed).as("a task run during the drain, on the executor").isTrue();
        assertThat(scheduled).as("a task run during the drain, on the scheduler").isTrue();
        assertThatNoException().isThrownBy(() -> executor.execute(() -> {
        }));
    }

    /** A lifecycle that, as it stops, hands one task to each pool and waits for both. */
    static final class Drain implements SmartLifecycle {

        private final AnnotationConfigApplicationContext context;

        private final AtomicBoolean executed;

        private final AtomicBoolean scheduled;

        private volatile boolean running;

        Drain(AnnotationConfigApplicationContext context, AtomicBoolean executed, AtomicBoolean scheduled) {
            this.context = context;
            this.executed = executed;
            this.scheduled = scheduled;
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            try {
                CompletableFuture
                    .runAsync(() -> executed.set(true), context.getBean("executor", ThreadPoolTaskExecutor.class))
                    .get(5, TimeUnit.SECONDS);
                CompletableFuture<Void> done = new CompletableFuture<>();
                context.getBean("scheduler", ThreadPoolTaskScheduler.class)
                    .schedule(() -> done.complete(null), java.time.Instant.now().plus(Duration.ofMillis(10)));
                done.get(5, TimeUnit.SECONDS);
                scheduled.set(true);
            }
            catch (Exception e) {
                // Left false: the assertion names it.
            }
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return SmartLifecycle.DEFAULT_PHASE - 2048;
        }

    }

}
