package io.varpulis.autoconfigure.node;

import io.varpulis.cluster.coordinator.AdmissionSettings;
import io.varpulis.cluster.coordinator.CoordinatorSettings;
import io.varpulis.cluster.coordinator.GroupSettings;
import io.varpulis.cluster.node.HeartbeatSettings;
import io.varpulis.cluster.node.NodeIdentity;
import io.varpulis.cluster.worker.RegistrationSettings;
import io.varpulis.cluster.worker.WorkerSettings;
import io.varpulis.pipeline.PipelineGroupSpec;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps {@code varpulis.cluster.*} to the settings each part of a node receives, checking
 * what binding cannot (one value against another, a group's routes) and failing startup
 * with the property's name, the bad value and the fix.
 */
final class NodeSettings {

    private NodeSettings() {
    }

    /**
     * @throws InvalidConfigurationPropertyValueException when the heartbeat timing, the
     * groups or the name are wrong
     */
    static CoordinatorSettings coordinator(ClusterProperties cluster) {
        return new CoordinatorSettings(NodeIdentity.clusterName(cluster.getName()), heartbeats(cluster),
                cluster.getCommandTimeout(), cluster.getRebalanceDelay(), cluster.getDeadWorkerRetention());
    }

    /**
     * @throws InvalidConfigurationPropertyValueException naming the group's property, the
     * problem and the fix
     */
    static GroupSettings groups(ClusterProperties cluster) {
        List<PipelineGroupSpec> configured = new ArrayList<>();
        cluster.getGroups().forEach((name, group) -> {
            PipelineGroupSpec named = group.name() != null ? group
                    : new PipelineGroupSpec(name, group.pipelines(), group.routes());
            try {
                named.validate(cluster.getMaxPartitions());
            }
            catch (IllegalArgumentException e) {
                throw new InvalidConfigurationPropertyValueException("varpulis.cluster.groups." + name, name,
                        e.getMessage());
            }
            configured.add(named);
        });
        return new GroupSettings(List.copyOf(configured), cluster.getMaxPartitions(), cluster.getCommandTimeout(),
                cluster.getHeartbeatInterval());
    }

    static AdmissionSettings admission(ClusterProperties cluster, String substrate) {
        return new AdmissionSettings(substrate, cluster.getApiKey(), heartbeats(cluster));
    }

    /**
     * @throws InvalidConfigurationPropertyValueException when the heartbeat timing, the
     * worker lease, the groups or the name are wrong
     */
    static WorkerSettings worker(ClusterProperties cluster) {
        HeartbeatSettings heartbeats = heartbeats(cluster);
        checkLeases(cluster);
        groups(cluster);
        return new WorkerSettings(NodeIdentity.clusterName(cluster.getName()), heartbeats.interval(),
                cluster.getCommandTimeout(), cluster.getMaxPartitions(), cluster.getDrainTimeout(),
                cluster.getWorkerLeaseTtl());
    }

    static RegistrationSettings registration(ClusterProperties cluster) {
        return new RegistrationSettings(cluster.getApiKey(), cluster.getMaxPipelines(),
                cluster.getRegistrationBackoff(), cluster.getRegistrationMaxBackoff(), cluster.isExitOnRefusal());
    }

    /**
     * @throws InvalidConfigurationPropertyValueException when the heartbeat timeout is
     * not longer than the interval
     */
    static HeartbeatSettings heartbeats(ClusterProperties cluster) {
        if (cluster.getHeartbeatInterval().isZero() || cluster.getHeartbeatInterval().isNegative()) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.heartbeat-interval",
                    cluster.getHeartbeatInterval(), "The heartbeat interval must be positive, e.g. 5s.");
        }
        if (cluster.getHeartbeatTimeout().compareTo(cluster.getHeartbeatInterval()) <= 0) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.heartbeat-timeout",
                    cluster.getHeartbeatTimeout(), "The heartbeat timeout must be longer than the heartbeat "
                            + "interval (" + cluster.getHeartbeatInterval() + "), typically three intervals.");
        }
        return new HeartbeatSettings(cluster.getHeartbeatInterval(), cluster.getHeartbeatTimeout());
    }

    /**
     * @throws InvalidConfigurationPropertyValueException when a lease TTL is too short
     * for its renewals: the leader lease under 1 s (the smallest limit-marker TTL, and
     * three renewals must fit), the worker lease not longer than two heartbeat intervals
     * (one lost renewal must not lose the id)
     */
    static void checkLeases(ClusterProperties cluster) {
        if (cluster.getLeaderLeaseTtl().compareTo(Duration.ofSeconds(1)) < 0) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.leader-lease-ttl",
                    cluster.getLeaderLeaseTtl(),
                    "The leader lease lives at least 1s (it is renewed every third of it); 6s is the default.");
        }
        if (cluster.getWorkerLeaseTtl().compareTo(cluster.getHeartbeatInterval().multipliedBy(2)) <= 0) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.worker-lease-ttl",
                    cluster.getWorkerLeaseTtl(),
                    "A worker renews its id with every heartbeat: the lease must live "
                            + "longer than two heartbeat intervals (" + cluster.getHeartbeatInterval().multipliedBy(2)
                            + "), typically three or more.");
        }
    }

}
