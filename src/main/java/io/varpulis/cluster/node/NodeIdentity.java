package io.varpulis.cluster.node;

import io.varpulis.nats.Subjects;
import io.varpulis.nats.Substrate;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.util.Locale;

/**
 * Resolves and checks a node's name and ids from what was configured, failing startup
 * with the property's name, the bad value and the fix.
 */
public final class NodeIdentity {

    private NodeIdentity() {
    }

    /**
     * @param configured {@code varpulis.cluster.worker-id}, or {@code null}
     * @return the worker id: the configured one, trimmed, or the host name
     * @throws InvalidConfigurationPropertyValueException when it is not a NATS token
     */
    public static String workerId(String configured) {
        String id = configured == null ? WorkerIds.fromHostName() : configured.trim();
        if (!Subjects.isToken(id)) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.worker-id", id,
                    "A worker id is a NATS subject token: letters, digits, '-' and '_' only. Set "
                            + "VARPULIS_WORKER_ID to, for example, worker-1.");
        }
        return id;
    }

    /**
     * @param configured {@code varpulis.cluster.address}, or {@code null}
     * @param serverPort the node's HTTP port, as configured
     * @return the address a worker announces: the configured one, or {@code {host
     * name}:{port}}
     */
    public static String address(String configured, String serverPort) {
        return configured != null ? configured : WorkerIds.fromHostName() + ":" + serverPort;
    }

    /**
     * @param configured {@code varpulis.cluster.coordinator-id}, or {@code null}
     * @param substrate the substrate
     * @return the coordinator id, trimmed; {@code coordinator} when none is configured on
     * core
     * @throws InvalidConfigurationPropertyValueException when it is missing on jetstream
     * (it names the durable heartbeat consumer, which must survive restarts) or blank
     */
    public static String coordinatorId(String configured, Substrate substrate) {
        String id = configured;
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
     * @param configured {@code varpulis.cluster.name}
     * @return the cluster name, trimmed
     * @throws InvalidConfigurationPropertyValueException when it is not a NATS token
     */
    public static String clusterName(String configured) {
        String name = configured == null ? "" : configured.trim();
        if (!Subjects.isToken(name)) {
            throw new InvalidConfigurationPropertyValueException("varpulis.cluster.name", configured,
                    "A cluster name is a NATS subject token: letters, digits, '-' and '_' only, e.g. "
                            + "VARPULIS_CLUSTER_NAME=prod-eu. Every node of one cluster uses the same name.");
        }
        return name;
    }

    /**
     * The default inbox prefix of a node's NATS connection
     * ({@code varpulis.nats.inbox-prefix}, SPEC section 10): {@code _INBOX_{role}_{id}},
     * the coordinator id for a coordinator ({@code coordinator} when unset, as on core),
     * the worker id for a worker or a standalone node. Each node's NATS user may then
     * subscribe to its own inbox only, never to what other connections receive.
     * @param role the node's role
     * @param workerId {@code varpulis.cluster.worker-id}, or {@code null}
     * @param coordinatorId {@code varpulis.cluster.coordinator-id}, or {@code null}
     * @return {@code _INBOX_worker_worker-1}, {@code _INBOX_coordinator_coordinator-0},
     * ...
     * @throws InvalidConfigurationPropertyValueException when the id is not a NATS token
     */
    public static String inboxPrefix(ClusterRole role, String workerId, String coordinatorId) {
        String name = role.name().toLowerCase(Locale.ROOT);
        if (!role.runsWorker()) {
            String id = coordinatorId == null || coordinatorId.isBlank() ? "coordinator" : coordinatorId.trim();
            if (!Subjects.isToken(id)) {
                throw new InvalidConfigurationPropertyValueException("varpulis.cluster.coordinator-id", id,
                        "A coordinator id is a NATS subject token (it names the coordinator's inbox "
                                + "_INBOX_coordinator_{id}): letters, digits, '-' and '_' only, e.g. coordinator-0.");
            }
            return Subjects.inbox(name, id);
        }
        return Subjects.inbox(name, workerId(workerId));
    }

}
