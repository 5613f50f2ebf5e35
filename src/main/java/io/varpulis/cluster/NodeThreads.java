package io.varpulis.cluster;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * What the coordinator and worker lifecycles share.
 */
final class NodeThreads {

    /**
     * Lifecycle phase of the nodes: below the web server's graceful shutdown, so the node stops (and a worker
     * drains) while the connection is still open, after HTTP requests were allowed to finish.
     */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

    private NodeThreads() {
    }

    /**
     * @param name the thread name prefix
     * @return a factory of daemon threads, so a node's timers never keep a JVM alive
     */
    static CustomizableThreadFactory daemon(String name) {
        CustomizableThreadFactory threads = new CustomizableThreadFactory(name + "-");
        threads.setDaemon(true);
        return threads;
    }
}
