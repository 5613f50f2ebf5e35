package io.varpulis.web;

import io.varpulis.cluster.ClusterState;
import io.varpulis.cluster.CoordinatorNode;
import io.varpulis.cluster.GroupStoreUnavailableException;
import io.varpulis.cluster.LeaderView;
import io.varpulis.cluster.WorkerRecord;
import io.varpulis.delivery.RouteEmitter;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.transport.ClusterTransport;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's operator API, JSON over HTTP under {@code /api/v1/cluster}. Errors are {@code {"error":"..."}}
 * with 400 (invalid input), 404 (unknown group), 409 (group exists) or 503 (the substrate or the group store did
 * not confirm).
 */
@RestController
@RequestMapping("/api/v1/cluster")
public class ClusterApiController {

    private final CoordinatorNode coordinator;
    private final ClusterTransport transport;
    private final EventCodec codec;
    private final SubstrateMetrics metrics;

    /**
     * @param coordinator the coordinator
     * @param transport   publishes injected events
     * @param codec       encodes them
     * @param metrics     counts them
     */
    public ClusterApiController(CoordinatorNode coordinator, ClusterTransport transport, EventCodec codec,
                                SubstrateMetrics metrics) {
        this.coordinator = coordinator;
        this.transport = transport;
        this.codec = codec;
        this.metrics = metrics;
    }

    /**
     * @return the registered workers with status, capacity, last heartbeat and placed pipelines
     */
    @GetMapping("/workers")
    public List<Map<String, Object>> workers() {
        ClusterState state = coordinator.state();
        return state.workers().stream().map(w -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("worker", w);
            entry.put("pipelines", state.pipelinesOf(w.workerId()));
            return entry;
        }).toList();
    }

    /**
     * @return which coordinator leads the cluster, the same on every coordinator (SPEC section 9):
     * {@code {"leader": "<coordinator id>", "epoch": N, "cluster", "expires_at", "this_node", "this_node_leads",
     * "lease_ttl_ms"}}
     */
    @GetMapping("/leader")
    public LeaderView leader() {
        return coordinator.leader();
    }

    /**
     * @return every group with its placement
     */
    @GetMapping("/pipeline-groups")
    public List<Map<String, Object>> groups() {
        return coordinator.state().groups().stream().map(this::describe).toList();
    }

    /**
     * Declares a group and places its pipelines (on the leader; a follower stores it and the leader places it).
     *
     * @param group the group JSON (SPEC section 6)
     * @return 201 with the group, its placement and each pipeline's state: a pipeline whose deploy failed shows as
     * {@code unplaced} with the error, and is placed again later
     */
    @PostMapping("/pipeline-groups")
    public ResponseEntity<Map<String, Object>> create(@RequestBody PipelineGroupSpec group) {
        coordinator.declare(group);
        return ResponseEntity.status(HttpStatus.CREATED).body(describe(group));
    }

    /**
     * @param id the group name
     * @return the group and its placement, 404 when unknown
     */
    @GetMapping("/pipeline-groups/{id}")
    public ResponseEntity<?> group(@PathVariable String id) {
        return coordinator.state().group(id).<ResponseEntity<?>>map(g -> ResponseEntity.ok(describe(g)))
                .orElseGet(() -> notFound(id));
    }

    /**
     * Removes a group; {@code ?purge=true} also deletes its durable consumers, state and stored events.
     *
     * @param id    the group name
     * @param purge delete consumers and state too
     * @return 204, or 404 when unknown
     */
    @DeleteMapping("/pipeline-groups/{id}")
    public ResponseEntity<?> delete(@PathVariable String id, @RequestParam(defaultValue = "false") boolean purge) {
        return coordinator.remove(id, purge) ? ResponseEntity.noContent().build() : notFound(id);
    }

    /**
     * Injects one event at the group's {@code _external} entry: it follows every route from {@code _external} whose
     * pattern matches its type. Body: {@code {"event_type": "...", "fields": {...}, "timestamp": "..."}}; header-less
     * idempotency via an optional {@code ?id=} (used as the Nats-Msg-Id seed).
     *
     * @param id    the group name
     * @param event the event
     * @param msgId an id that makes retries of the same injection idempotent (2 min window), or none
     * @return 202 with the subjects and stream sequences stored
     * @throws Exception when the substrate did not confirm in time
     */
    @PostMapping("/pipeline-groups/{id}/inject")
    public ResponseEntity<?> inject(@PathVariable String id, @RequestBody Event event,
                                    @RequestParam(name = "id", required = false) String msgId) throws Exception {
        PipelineGroupSpec group = coordinator.state().group(id).orElse(null);
        if (group == null) {
            return notFound(id);
        }
        List<PipelineGroupSpec.RouteSpec> entries = group.outputRoutes(Subjects.EXTERNAL).stream()
                .filter(r -> r.matches(event.eventType())).toList();
        if (entries.isEmpty()) {
            return ResponseEntity.badRequest().body(new ApiError("no route from _external in group " + id
                    + " accepts event type " + event.eventType()));
        }
        String seed = "inject:" + (msgId == null ? UUID.randomUUID() : msgId);
        new RouteEmitter(id, entries, transport, codec, metrics).emit(List.of(event), seed)
                .get(10, TimeUnit.SECONDS);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "injected");
        body.put("routes", entries.stream().map(r -> r.toPipeline()).toList());
        return ResponseEntity.accepted().body(body);
    }

    /**
     * @return every group's placement and edges (subject and durable consumer of each)
     */
    @GetMapping("/topology")
    public Map<String, Object> topology() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("coordinator_id", coordinator.coordinatorId());
        body.put("leader", coordinator.leader().leader());
        body.put("substrate", transport.substrate().id());
        body.put("workers", coordinator.state().workers().stream().map(WorkerRecord::workerId).toList());
        body.put("groups", coordinator.topology());
        return body;
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<ApiError> badRequest(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(new ApiError(e.getMessage()));
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<ApiError> unreadable(HttpMessageNotReadableException e) {
        Throwable cause = e.getMostSpecificCause();
        String detail = cause == e || cause.getMessage() == null ? "the body is missing" : cause.getMessage();
        return ResponseEntity.badRequest().body(new ApiError("the request body is not the expected JSON: "
                + detail.lines().findFirst().orElse(detail)));
    }

    @ExceptionHandler(org.springframework.web.HttpMediaTypeNotSupportedException.class)
    ResponseEntity<ApiError> unsupportedMediaType(Exception e) {
        return ResponseEntity.status(HttpStatus.UNSUPPORTED_MEDIA_TYPE)
                .body(new ApiError("send JSON with Content-Type: application/json"));
    }

    @ExceptionHandler(GroupStoreUnavailableException.class)
    ResponseEntity<ApiError> storeUnavailable(GroupStoreUnavailableException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(new ApiError(e.getMessage()));
    }

    @ExceptionHandler(IllegalStateException.class)
    ResponseEntity<ApiError> conflict(IllegalStateException e) {
        return ResponseEntity.status(HttpStatus.CONFLICT).body(new ApiError(e.getMessage()));
    }

    @ExceptionHandler({CompletionException.class, java.util.concurrent.ExecutionException.class,
            java.util.concurrent.TimeoutException.class})
    ResponseEntity<ApiError> unavailable(Exception e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .body(new ApiError("the substrate did not confirm the injection (" + e.getMessage() + "); it may "
                        + "still be stored once NATS is back: retry with the same ?id= so that it is stored once"));
    }

    private ResponseEntity<ApiError> notFound(String id) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(new ApiError("no pipeline group named " + id));
    }

    private Map<String, Object> describe(PipelineGroupSpec group) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("group", group);
        body.put("placement", coordinator.placementOf(group.name()));
        body.put("pipelines", coordinator.pipelinesOf(group.name()));
        coordinator.adoptingUntil().ifPresent(until -> body.put("adopting_until", until));
        return body;
    }
}
