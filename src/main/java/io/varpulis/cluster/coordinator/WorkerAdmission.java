package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.varpulis.cluster.node.ClusterProperties;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.cluster.protocol.WorkerCapabilities;
import io.varpulis.nats.Subjects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.BiConsumer;

/**
 * A coordinator's admission of workers (SPEC sections 9 and 17): answers registrations (refused with a reason the
 * worker logs: a worker id that is not a NATS token, another substrate, a wrong api-key) and admits from its
 * heartbeats a worker that answered it cannot register again (a Rust Varpulis 0.11 worker), when that skips no check.
 * An admitted worker is registered with the placement gate and the cluster state, and no longer listed as
 * heartbeating unregistered. Logs under {@link CoordinatorNode}'s name, as before it was split off.
 */
final class WorkerAdmission {

    private static final Logger log = LoggerFactory.getLogger(CoordinatorNode.class);

    private final ClusterProperties cluster;
    private final Connection connection;
    private final ObjectMapper mapper;
    private final String substrate;
    private final PlacementGate gate;
    private final ClusterState state;
    private final UnregisteredWorkers unregistered;
    private final BiConsumer<String, String> otherCluster;
    private final Runnable admitted;

    /**
     * @param cluster      the cluster's settings (name, api-key, heartbeat interval)
     * @param connection   answers registrations on it
     * @param mapper       reads requests, writes replies
     * @param substrate    the cluster's substrate id ({@code core}, {@code jetstream})
     * @param gate         learns each admitted worker's capabilities
     * @param state        lists admitted workers as ready
     * @param unregistered the workers heartbeating unregistered, from which an admitted one is removed
     * @param otherCluster told {@code (cluster, what showed it)} when another cluster's worker registers here
     * @param admitted     run after each admission (the leader places pending pipelines soon)
     */
    WorkerAdmission(ClusterProperties cluster, Connection connection, ObjectMapper mapper, String substrate,
                    PlacementGate gate, ClusterState state, UnregisteredWorkers unregistered,
                    BiConsumer<String, String> otherCluster, Runnable admitted) {
        this.cluster = cluster;
        this.connection = connection;
        this.mapper = mapper;
        this.substrate = substrate;
        this.gate = gate;
        this.state = state;
        this.unregistered = unregistered;
        this.otherCluster = otherCluster;
        this.admitted = admitted;
    }

    /**
     * A worker's answer to {@code register}: a worker that cannot register again by itself (a Rust Varpulis 0.11
     * worker) is admitted from its heartbeats when that skips no check ({@link UnregisteredWorkers#answered}), as one
     * that runs none of this cluster's pipelines (no capabilities); every coordinator, leader or follower, decides
     * the same from the same answer.
     */
    void onRegisterAnswer(String workerId, JsonNode reply, Throwable error) {
        if (unregistered.answered(workerId, reply, error) && state.worker(workerId).isEmpty()) {
            admit(new Registration.Request(workerId, "", null, null, null, null, null), "admitted from its "
                    + "heartbeats: it answered \"" + reply.path("error").asText() + "\" (a Rust Varpulis worker "
                    + "registers only when it starts) and this cluster has no api-key to check; it announced no "
                    + "capabilities, so no pipeline is placed on it");
        }
    }

    /**
     * Answers a registration request (core request/reply on {@code varpulis.cluster.register}): another cluster's
     * is left unanswered and reported; an unreadable one is refused with the reason.
     *
     * @param message the request
     */
    void onRegistration(Message message) {
        Registration.Reply reply;
        try {
            Registration.Request request = mapper.readValue(message.getData(), Registration.Request.class);
            String from = request.cluster() == null ? ClusterProperties.DEFAULT_NAME : request.cluster();
            if (!from.equals(cluster.getName())) {
                // Not ours to answer: its own cluster's coordinators do (one cluster per account, SPEC section 9).
                otherCluster.accept(from, "a registration of worker " + request.workerId());
                return;
            }
            reply = answer(request);
        } catch (Exception e) {
            reply = Registration.Reply.refused(null, Registration.Reply.UNREADABLE,
                    "unreadable registration: " + e.getMessage());
        }
        if (message.getReplyTo() != null) {
            try {
                connection.publish(message.getReplyTo(), mapper.writeValueAsBytes(reply));
            } catch (Exception e) {
                log.warn("could not answer a registration: {}", e.toString());
            }
        }
    }

    private Registration.Reply answer(Registration.Request request) {
        if (!Subjects.isToken(request.workerId())) {
            return Registration.Reply.refused(request.workerId(), Registration.Reply.WORKER_ID,
                    "worker_id must be a NATS token (letters, digits, '-', '_')");
        }
        if (request.substrate() != null && !request.substrate().equals(substrate)) {
            // A core worker in a jetstream cluster would publish outputs nobody stores and lose them.
            log.warn("refused registration of worker {}: substrate {} differs from the cluster's {}",
                    request.workerId(), request.substrate(), substrate);
            return Registration.Reply.refused(request.workerId(), Registration.Reply.SUBSTRATE, "worker "
                    + request.workerId() + " runs on the " + request.substrate() + " substrate, this coordinator on "
                    + substrate + ": set VARPULIS_NATS_SUBSTRATE=" + substrate
                    + " on the worker");
        }
        if (cluster.getApiKey() != null && !cluster.getApiKey().equals(request.apiKey())) {
            log.warn("refused registration of worker {}: invalid api_key", request.workerId());
            return Registration.Reply.refused(request.workerId(), Registration.Reply.API_KEY, "invalid api_key: "
                    + "set varpulis.cluster.api-key (VARPULIS_CLUSTER_APIKEY) on the worker to the cluster's key");
        }
        admit(request, "registered");
        // Whole seconds, rounded up: a sub-second interval must not read as 0.
        return Registration.Reply.registered(request.workerId(),
                (cluster.getHeartbeatInterval().toMillis() + 999) / 1000);
    }

    /** Lists the worker as ready with what it can run; the leader places pending pipelines soon after. */
    private void admit(Registration.Request request, String how) {
        gate.registered(request);
        state.register(request);
        unregistered.registered(request.workerId());
        log.info("worker {} {} ({}, max {} pipelines, capabilities {})", request.workerId(), how,
                request.address(), request.capacity() == null ? "?" : request.capacity().maxPipelines(),
                WorkerCapabilities.of(request));
        admitted.run();
    }
}
