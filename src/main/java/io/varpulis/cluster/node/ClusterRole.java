package io.varpulis.cluster.node;

/**
 * What a node does in the cluster, {@code varpulis.cluster.role}.
 */
public enum ClusterRole {

    /**
     * Registers workers, watches their heartbeats, places pipeline groups and serves the
     * operator API.
     */
    COORDINATOR,

    /**
     * Runs pipelines, routes events between them, heartbeats to the coordinator and
     * serves its commands.
     */
    WORKER,

    /** Coordinator and worker in one process: the laptop setup. */
    STANDALONE;

    /**
     * @return {@code true} for the coordinator and standalone roles
     */
    public boolean runsCoordinator() {
        return this != WORKER;
    }

    /**
     * @return {@code true} for the worker and standalone roles
     */
    public boolean runsWorker() {
        return this != COORDINATOR;
    }

}
