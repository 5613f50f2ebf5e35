package io.varpulis.cluster.node;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health component {@code cluster} (SPEC section 9), in the readiness group: on a
 * coordinator, the cluster's leader and epoch, whether this node leads, whether it is
 * still adopting from heartbeats, its workers by status and any other cluster found in
 * the NATS account (always UP: a follower is healthy); on a worker, DOWN while another
 * process holds its worker id or a coordinator refused it for good, with the reason.
 */
public class ClusterHealthIndicator extends AbstractHealthIndicator {

    private final NodeHealth coordinator;

    private final NodeHealth worker;

    /**
     * @param coordinator this node's coordinator, or {@code null}
     * @param worker this node's worker, or {@code null}
     */
    public ClusterHealthIndicator(NodeHealth coordinator, NodeHealth worker) {
        super("cluster health check failed");
        this.coordinator = coordinator;
        this.worker = worker;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up();
        if (coordinator != null) {
            builder.withDetail("coordinator", coordinator.healthDetails());
        }
        if (worker != null) {
            builder.withDetail("worker", worker.healthDetails());
            if (worker.unreadyReason().isPresent()) {
                builder.down();
            }
        }
    }

}
