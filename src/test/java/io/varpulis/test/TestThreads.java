package io.varpulis.test;

import io.varpulis.support.DaemonThreads;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The threads of the parts a test builds by hand, outside a Spring context: what the node's executor beans are in
 * production ({@link DaemonThreads}), made and initialised once per test JVM. Daemon threads, never shut down.
 */
public final class TestThreads {

    private static final ThreadPoolTaskScheduler SCHEDULER = initialised(DaemonThreads.scheduler("test-scheduler"));
    private static final ThreadPoolTaskExecutor IN_ORDER = initialised(DaemonThreads.executor("test-in-order", 1));
    private static final ThreadPoolTaskExecutor PARALLEL = initialised(DaemonThreads.executor("test-parallel",
            Integer.MAX_VALUE));

    private TestThreads() {
    }

    /**
     * @return a scheduler of one daemon thread
     */
    public static ThreadPoolTaskScheduler scheduler() {
        return SCHEDULER;
    }

    /**
     * @return an executor of one daemon thread, running its tasks in order
     */
    public static ThreadPoolTaskExecutor inOrder() {
        return IN_ORDER;
    }

    /**
     * @return an executor of a daemon thread per task
     */
    public static ThreadPoolTaskExecutor parallel() {
        return PARALLEL;
    }

    private static ThreadPoolTaskScheduler initialised(ThreadPoolTaskScheduler scheduler) {
        scheduler.initialize();
        return scheduler;
    }

    private static ThreadPoolTaskExecutor initialised(ThreadPoolTaskExecutor executor) {
        executor.initialize();
        return executor;
    }
}
