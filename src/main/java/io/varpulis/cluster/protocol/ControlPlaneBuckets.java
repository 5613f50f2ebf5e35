package io.varpulis.cluster.protocol;

/**
 * The JetStream key-value buckets of the control plane (JetStream substrate only): their
 * names are part of what the nodes share, and of the NATS permissions each role needs
 * (docs/OPERATING.md). Every bucket is created when absent and never updated or deleted
 * by a node.
 */
public final class ControlPlaneBuckets {

    /**
     * The coordinators' leader leases, one key per cluster name. Never delete it: its
     * revisions are the leader epochs, which must only grow.
     */
    public static final String LEADER = "varpulis_leader";

    /**
     * The pipeline groups, one key {@code {cluster}.{group}} per group: what every
     * coordinator of a cluster sees.
     */
    public static final String GROUPS = "varpulis_groups";

    /**
     * The worker ids held by live processes, one key per worker id; a coordinator reads
     * its revisions to tell a worker that progresses from one that is gone.
     */
    public static final String WORKER_IDS = "varpulis_workers";

    private ControlPlaneBuckets() {
    }

}
