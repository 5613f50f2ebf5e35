package io.varpulis.cluster.node;

import org.springframework.context.SmartLifecycle;

/**
 * What the coordinator and worker lifecycles share: their phase.
 */
public final class NodeLifecycle {

    /**
     * Lifecycle phase of the nodes: below the web server's graceful shutdown, so the node
     * stops (and a worker drains) while the connection is still open, after HTTP requests
     * were allowed to finish.
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

    private NodeLifecycle() {
    }

}
