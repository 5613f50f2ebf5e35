package io.varpulis.test;

import io.varpulis.delivery.PipelineHost;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.support.DaemonThreads;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The threads of the parts a test builds by hand, outside a Spring context: what the
 * node's executor beans are in production ({@link DaemonThreads}), each made and
 * initialised once per test JVM. Daemon threads, never shut down.
 */
public final class TestThreads {

    private static final ThreadPoolTaskScheduler SCHEDULER = initialised(DaemonThreads.scheduler("test-scheduler"));

    private static final JetStreamKeyValueState.Threads STATES = new JetStreamKeyValueState.Threads(
            initialised(DaemonThreads.executor("test-state", Integer.MAX_VALUE)),
            initialised(DaemonThreads.scheduler("test-state-timer")));

    private static final PipelineHost.Threads HOST = new PipelineHost.Threads(
            initialised(DaemonThreads.executor("test-ownership-proof", Integer.MAX_VALUE)),
            initialised(DaemonThreads.executor("test-fenced-stop", 1)));

    private TestThreads() {
    }

    /**
     * @return a scheduler of one daemon thread (a group store's re-reads)
     */
    public static ThreadPoolTaskScheduler scheduler() {
        return SCHEDULER;
    }

    /**
     * @return the threads of the JetStream states a test opens
     */
    public static JetStreamKeyValueState.Threads states() {
        return STATES;
    }

    /**
     * @return the threads of the pipeline hosts a test makes
     */
    public static PipelineHost.Threads host() {
        return HOST;
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
