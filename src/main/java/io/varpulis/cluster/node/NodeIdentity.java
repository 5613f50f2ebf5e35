package io.varpulis.cluster.node;

import io.varpulis.nats.Subjects;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.PipelineGroupSpec;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.time.Duration;
import java.util.Locale;

/**
 * Resolves and checks a node's ids and timing settings, failing startup with the
 * property's name, the bad value and the fix.
 */
public final class NodeIdentity {

    private NodeIdentity() {
    }

    /**
     * @param cluster the settings
     * @return the worker id: {@code varpulis.cluster.worker-id} or the host name
     * @throws InvalidConfigurationPropertyValueException when it is not a NATS token
     */
    public static String workerId(ClusterProperties cluster) {
        String id = cluster.getWorkerId() == null ? WorkerIds.fromHostName() : cluster.getWorkerId().trim();
        if (!Subjects.isToken(id)) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.worker-id", id,
                    "A worker id is a NATS subject token: letters, digits, '-' and '_' only. Set "
                            + "VARPULIS_WORKER_ID to, for example, worker-1.");
        }
        return id;
    }

    /**
     * @param cluster the settings
     * @param serverPort the node's HTTP port, as configured
     * @return the address a worker announces: {@code varpulis.cluster.address}, or
     * {@code {host name}:{port}}
     */
    public static String address(ClusterProperties cluster, String serverPort) {
        return cluster.getAddress() != null ? cluster.getAddress() : WorkerIds.fromHostName() + ":" + serverPort;
    }

    /**
     * @param cluster the settings
     * @param substrate the substrate
     * @return the coordinator id
     * @throws InvalidConfigurationPropertyValueException when it is missing on jetstream
     * (it names the durable heartbeat consumer, which must survive restarts) or blank
     */
    public static String coordinatorId(ClusterProperties cluster, Substrate substrate) {
        String id = cluster.getCoordinatorId();
        if (id == null || id.isBlank()) {
            if (substrate == Substrate.JETSTREAM) {
                throw new InvalidConfigurationPropertyValueException("varpulis.cluster.coordinator-id", id,
                        "A coordinator on the jetstream substrate needs a stable id: it names its durable heartbeat "
                                + "consumer hb_{id}, which must be the same after a restart and differ between "
                                + "coordinators. Set VARPULIS_COORDINATOR_ID (in Kubernetes: the StatefulSet pod "
                                + "name).");
            }
            return "coordinator";
        }
        return id.trim();
    }

    /**
     * @param cluster the settings
     * @return the cluster name, trimmed
     * @throws InvalidConfigurationPropertyValueException when it is not a NATS token
     */
    public static String clusterName(ClusterProperties cluster) {
        String name = cluster.getName() == null ? "" : cluster.getName().trim();
        if (!Subjects.isToken(name)) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.name", cluster.getName(),
                    "A cluster name is a NATS subject token: letters, digits, '-' and '_' only, e.g. "
                            + "VARPULIS_CLUSTER_NAME=prod-eu. Every node of one cluster uses the same name.");
        }
        cluster.setName(name);
        return name;
    }

    /**
     * @param cluster the settings
     * @throws InvalidConfigurationPropertyValueException when a lease TTL is too short
     * for its renewals: the leader lease under 1 s (the smallest limit-marker TTL, and
     * three renewals must fit), the worker lease not longer than two heartbeat intervals
     * (one lost renewal must not lose the id)
     */
    public static void checkLeases(ClusterProperties cluster) {
        if (cluster.getLeaderLeaseTtl().compareTo(Duration.ofSeconds(1)) < 0) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.leader-lease-ttl",
                    cluster.getLeaderLeaseTtl(),
                    "The leader lease lives at least 1s (it is renewed every third of " + "it); 6s is the default.");
        }
        if (cluster.getWorkerLeaseTtl().compareTo(cluster.getHeartbeatInterval().multipliedBy(2)) <= 0) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.worker-lease-ttl",
                    cluster.getWorkerLeaseTtl(),
                    "A worker renews its id with every heartbeat: the lease must live "
                            + "longer than two heartbeat intervals (" + cluster.getHeartbeatInterval().multipliedBy(2)
                            + "), typically three or more.");
        }
    }

    /**
     * @param cluster the settings
     * @throws InvalidConfigurationPropertyValueException when the heartbeat timeout is
     * not longer than the interval
     */
    public static void checkHeartbeats(ClusterProperties cluster) {
        checkGroups(cluster);
        if (cluster.getHeartbeatInterval().isZero() || cluster.getHeartbeatInterval().isNegative()) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.heartbeat-interval",
                    cluster.getHeartbeatInterval(), "The heartbeat interval must be positive, e.g. 5s.");
        }
        if (cluster.getHeartbeatTimeout().compareTo(cluster.getHeartbeatInterval()) <= 0) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.heartbeat-timeout",
                    cluster.getHeartbeatTimeout(), "The heartbeat timeout must be longer than the heartbeat "
                            + "interval (" + cluster.getHeartbeatInterval() + "), typically three intervals.");
        }
    }

    /**
     * Checks the groups configured under {@code varpulis.cluster.groups.<name>} (names,
     * routes, {@code replicas} and {@code partition-key}, SPEC section 11) before the
     * coordinator starts.
     * @param cluster the cluster settings
     * @throws InvalidConfigurationPropertyValueException naming the group's property, the
     * problem and the fix
     */
    public static void checkGroups(ClusterProperties cluster) {
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
        });
    }

    /**
     * The default inbox prefix of a node's NATS connection
     * ({@code varpulis.nats.inbox-prefix}, SPEC section 10): {@code _INBOX_{role}_{id}},
     * the coordinator id for a coordinator ({@code coordinator} when unset, as on core),
     * the worker id for a worker or a standalone node. Each node's NATS user may then
     * subscribe to its own inbox only, never to what other connections receive.
     * @param cluster the settings
     * @return {@code _INBOX_worker_worker-1}, {@code _INBOX_coordinator_coordinator-0},
     * ...
     * @throws InvalidConfigurationPropertyValueException when the id is not a NATS token
     */
    public static String inboxPrefix(ClusterProperties cluster) {
        String role = cluster.getRole().name().toLowerCase(Locale.ROOT);
        if (!cluster.getRole().runsWorker()) {
            String id = cluster.getCoordinatorId() == null || cluster.getCoordinatorId().isBlank() ? "coordinator"
                    : cluster.getCoordinatorId().trim();
            if (!Subjects.isToken(id)) {
                throw new InvalidConfigurationPropertyValueException("varpulis.cluster.coordinator-id", id,
                        "A coordinator id is a NATS subject token (it names the coordinator's inbox "
                                + "_INBOX_coordinator_{id}): letters, digits, '-' and '_' only, e.g. coordinator-0.");
            }
            return Subjects.inbox(role, id);
        }
        return Subjects.inbox(role, workerId(cluster));
    }

}
