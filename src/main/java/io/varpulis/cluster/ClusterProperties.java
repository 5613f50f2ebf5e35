package io.varpulis.cluster;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * The cluster node settings, {@code varpulis.cluster.*} (SPEC section 2). {@code VARPULIS_COORDINATOR_ID} and
 * {@code VARPULIS_WORKER_ID} are read as aliases of {@code coordinator-id} and {@code worker-id} (ADR-007).
 */
@ConfigurationProperties(prefix = "varpulis.cluster")
public class ClusterProperties {

    /** What this node runs: coordinator, worker, or standalone (both in one process). */
    private ClusterRole role = ClusterRole.STANDALONE;

    /**
     * The coordinator's stable id (env {@code VARPULIS_COORDINATOR_ID}): names its durable heartbeat consumer
     * {@code hb_{id}}, so it must stay the same across restarts and differ between coordinators. Required when a
     * coordinator runs on jetstream.
     */
    private String coordinatorId;

    /**
     * This worker's id (env {@code VARPULIS_WORKER_ID}), a NATS token: letters, digits, {@code -} and {@code _}.
     * Defaults to the host name, with other characters replaced by {@code -}.
     */
    private String workerId;

    /** How often a worker publishes its heartbeat. */
    private Duration heartbeatInterval = Duration.ofSeconds(5);

    /** A worker is unhealthy after this long without a heartbeat; older replayed heartbeats are discarded. */
    private Duration heartbeatTimeout = Duration.ofSeconds(15);

    public ClusterRole getRole() {
        return role;
    }

    public void setRole(ClusterRole role) {
        this.role = role;
    }

    public String getCoordinatorId() {
        return coordinatorId;
    }

    public void setCoordinatorId(String coordinatorId) {
        this.coordinatorId = coordinatorId;
    }

    public String getWorkerId() {
        return workerId;
    }

    public void setWorkerId(String workerId) {
        this.workerId = workerId;
    }

    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    public Duration getHeartbeatTimeout() {
        return heartbeatTimeout;
    }

    public void setHeartbeatTimeout(Duration heartbeatTimeout) {
        this.heartbeatTimeout = heartbeatTimeout;
    }
}
