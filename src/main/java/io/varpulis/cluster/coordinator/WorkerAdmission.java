package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.cluster.protocol.WorkerCapabilities;
import io.varpulis.nats.Subjects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator's admission of workers (SPEC sections 9 and 17): decides each
 * registration (refused with a reason the worker logs: a worker id that is not a NATS
 * token, another substrate, a wrong api-key), asks a worker that heartbeats without being
 * registered here to register again, and admits from its heartbeats a worker that
 * answered it cannot (a Rust Varpulis 0.11 worker), when that skips no check. An admitted
 * worker is registered with the placement gate and the cluster state, no longer listed as
 * heartbeating unregistered, and the leader places pending pipelines soon after.
 */
public class WorkerAdmission {

    private static final Logger log = LoggerFactory.getLogger(WorkerAdmission.class);

    private final AdmissionSettings settings;

    private final PlacementGate gate;

    private final ClusterState state;

    private final UnregisteredWorkers unregistered;

    private final PlacementLoop placement;

    private final CoordinatorCommands commands;

    /**
     * @param settings the substrate and api-key a worker must match, the heartbeat timing
     * it is told
     * @param gate learns each admitted worker's capabilities
     * @param state lists admitted workers as ready
     * @param unregistered the workers heartbeating unregistered
     * @param placement places pending pipelines after an admission; holds back a repeated
     * ask to register
     * @param commands asks a worker to register again
     */
    public WorkerAdmission(AdmissionSettings settings, PlacementGate gate, ClusterState state,
            UnregisteredWorkers unregistered, PlacementLoop placement, CoordinatorCommands commands) {
        this.settings = settings;
        this.gate = gate;
        this.state = state;
        this.unregistered = unregistered;
        this.placement = placement;
        this.commands = commands;
    }

    /**
     * Decides a registration of this cluster's worker, and admits the worker when it
     * passes.
     * @param request the registration
     * @return the reply: {@code registered} with the heartbeat interval in whole seconds,
     * or a refusal whose reason says whether retrying can help
     * ({@link Registration.Reply#isFinal()})
     */
    public Registration.Reply answer(Registration.Request request) {
        if (!Subjects.isToken(request.workerId())) {
            return Registration.Reply.refused(request.workerId(), Registration.Reply.WORKER_ID,
                    "worker_id must be a NATS token (letters, digits, '-', '_')");
        }
        if (request.substrate() != null && !request.substrate().equals(settings.substrate())) {
            // A core worker in a jetstream cluster would publish outputs nobody stores
            // and lose them.
            log.warn("refused registration of worker {}: substrate {} differs from the cluster's {}",
                    request.workerId(), request.substrate(), settings.substrate());
            return Registration.Reply.refused(request.workerId(), Registration.Reply.SUBSTRATE,
                    "worker " + request.workerId() + " runs on the " + request.substrate()
                            + " substrate, this coordinator on " + settings.substrate()
                            + ": set VARPULIS_NATS_SUBSTRATE=" + settings.substrate() + " on the worker");
        }
        if (settings.apiKey() != null && !settings.apiKey().equals(request.apiKey())) {
            log.warn("refused registration of worker {}: invalid api_key", request.workerId());
            return Registration.Reply.refused(request.workerId(), Registration.Reply.API_KEY, "invalid api_key: "
                    + "set varpulis.cluster.api-key (VARPULIS_CLUSTER_APIKEY) on the worker to the cluster's key");
        }
        admit(request, "registered");
        // Whole seconds, rounded up: a sub-second interval must not read as 0.
        return Registration.Reply.registered(request.workerId(),
                (settings.heartbeats().interval().toMillis() + 999) / 1000);
    }

    /**
     * Records a heartbeat of a worker this coordinator does not know.
     * @param workerId the worker
     */
    public void heartbeatUnregistered(String workerId) {
        unregistered.heartbeat(workerId);
        if (state.worker(workerId).isPresent()) {
            // It registered between the caller's lookup and the line before: listed as
            // both until its timeout.
            unregistered.registered(workerId);
        }
    }

    /**
     * Asks a worker that heartbeats unregistered (this coordinator restarted?) to
     * register again, once per heartbeat-timeout; its answer may admit it
     * ({@link UnregisteredWorkers#answered}).
     * @param workerId the worker
     */
    public void askToRegister(String workerId) {
        if (placement.firstCommandIn(workerId + "@register", settings.heartbeats().timeout())) {
            log.info("heartbeat from unknown worker {} (this coordinator restarted?); asking it to register", workerId);
            commands.askToRegister(workerId).whenComplete((reply, error) -> onRegisterAnswer(workerId, reply, error));
        }
    }

    /**
     * A worker's answer to {@code register}: a worker that cannot register again by
     * itself (a Rust Varpulis 0.11 worker) is admitted from its heartbeats when that
     * skips no check ({@link UnregisteredWorkers#answered}), as one that runs none of
     * this cluster's pipelines (no capabilities); every coordinator, leader or follower,
     * decides the same from the same answer.
     */
    private void onRegisterAnswer(String workerId, JsonNode reply, Throwable error) {
        if (unregistered.answered(workerId, reply, error) && state.worker(workerId).isEmpty()) {
            admit(new Registration.Request(workerId, "", null, null, null, null, null), "admitted from its "
                    + "heartbeats: it answered \"" + reply.path("error").asText() + "\" (a Rust Varpulis worker "
                    + "registers only when it starts) and this cluster has no api-key to check; it announced no "
                    + "capabilities, so no pipeline is placed on it");
        }
    }

    /**
     * Lists the worker as ready with what it can run; the leader places pending pipelines
     * soon after.
     */
    private void admit(Registration.Request request, String how) {
        gate.registered(request);
        state.register(request);
        unregistered.registered(request.workerId());
        log.info("worker {} {} ({}, max {} pipelines, capabilities {})", request.workerId(), how, request.address(),
                request.capacity() == null ? "?" : request.capacity().maxPipelines(), WorkerCapabilities.of(request));
        placement.placeSoonIfLeading();
    }

}
