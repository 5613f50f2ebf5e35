package io.varpulis.web;

import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.varpulis.cluster.coordinator.ClusterQueries;
import io.varpulis.cluster.coordinator.GroupDeclarations;
import io.varpulis.cluster.coordinator.GroupStoreUnavailableException;
import io.varpulis.cluster.coordinator.LeaderView;
import io.varpulis.cluster.coordinator.WorkerRecord;
import io.varpulis.delivery.EventInjector;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.support.AuditLog;
import io.varpulis.transport.ClusterTransport;
import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * The coordinator's operator API, JSON over HTTP under {@code /api/v1/cluster}: it reads
 * the cluster through {@link ClusterQueries} and declares and removes groups through
 * {@link GroupDeclarations}. Errors are {@code {"error":"..."}} with 400 (invalid input),
 * 404 (unknown group), 409 (group exists), 413 (an event NATS can never store) or 503
 * (the substrate or the group store did not confirm); 401, 403 and 413 for a body over
 * the limit come from {@link ClusterHttpSecurity}, unknown paths and bodies from
 * {@link ApiErrorAdvice}. Every write is audited ({@link AuditLog}) with the principal
 * and its roles.
 */
@RestController
@RequestMapping("/api/v1/cluster")
public class ClusterApiController {

    /**
     * An injected event's type: it goes into audit lines, logs and metrics tags, so no
     * control or odd character.
     */
    private static final Pattern EVENT_TYPE = Pattern.compile("[A-Za-z0-9._:-]+");

    private static final Logger log = LoggerFactory.getLogger(ClusterApiController.class);

    private final ClusterQueries cluster;

    private final GroupDeclarations groups;

    private final EventInjector injector;

    private final String substrate;

    private final ApiLimits limits;

    /**
     * Warns when {@code varpulis.security.max-request-size} is above the server's
     * {@code max_payload}: bodies between the two are read, then answered 413.
     * @param cluster what the coordinator knows of its cluster, read-only
     * @param groups declares and removes groups
     * @param injector puts injected events into their group
     * @param transport the substrate: its {@code max_payload} (a larger event can never
     * be stored), its name
     * @param limits the longest event type and field name an injected event may carry,
     * the body limit
     */
    public ClusterApiController(ClusterQueries cluster, GroupDeclarations groups, EventInjector injector,
            ClusterTransport transport, ApiLimits limits) {
        this.cluster = cluster;
        this.groups = groups;
        this.injector = injector;
        this.substrate = transport.substrate().id();
        this.limits = limits;
        long server = transport.maxPayload();
        if (server > 0 && limits.maxRequestSize().toBytes() > server) {
            log.warn(
                    "varpulis.security.max-request-size ({} bytes) is above the NATS server's max_payload ({} bytes): "
                            + "an injected event larger than max_payload is read, then answered 413; lower "
                            + "varpulis.security.max-request-size to {} or raise the server's max_payload",
                    limits.maxRequestSize().toBytes(), server, server);
        }
    }

    /**
     * @return the registered workers with status, capacity, last heartbeat and placed
     * pipelines, then the workers that heartbeat without being registered here (status
     * {@code heartbeating_unregistered}, with the reason: a Rust Varpulis worker after
     * this coordinator restarted, when the cluster's api-key keeps it from being admitted
     * from its heartbeats, SPEC section 17)
     */
    @GetMapping("/workers")
    public List<Map<String, Object>> workers() {
        List<Map<String, Object>> workers = new ArrayList<>(cluster.workers().stream().map(w -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("worker", w);
            entry.put("pipelines", cluster.placedOn(w.workerId()));
            return entry;
        }).toList());
        cluster.unregisteredWorkers().forEach(w -> workers.add(Map.of("worker", w, "pipelines", List.of())));
        return workers;
    }

    /**
     * @return which coordinator leads the cluster, the same on every coordinator (SPEC
     * section 9):
     * {@code {"leader": "<coordinator id>", "epoch": N, "cluster", "expires_at", "this_node", "this_node_leads",
     * "lease_ttl_ms"}}
     */
    @GetMapping("/leader")
    public LeaderView leader() {
        return cluster.leader();
    }

    /**
     * @return every group with its placement
     */
    @GetMapping("/pipeline-groups")
    public List<GroupView> groups() {
        return cluster.groups().stream().map(this::describe).toList();
    }

    /**
     * Declares a group and places its pipelines (on the leader; a follower stores it and
     * the leader places it).
     * @param group the group JSON (SPEC section 6)
     * @param request the request, for the audit line
     * @return 201 with the group, its placement and each pipeline's state: a pipeline
     * whose deploy failed shows as {@code unplaced} with the error, and is placed again
     * later
     */
    @ResponseStatus(HttpStatus.CREATED)
    @ApiResponse(responseCode = "201", description = "the group, its placement and each pipeline's state",
            content = @Content(schema = @Schema(implementation = GroupView.class)))
    @ApiResponse(responseCode = "400", description = "an invalid group: names, routes, processor settings")
    @ApiResponse(responseCode = "409", description = "a group of that name exists in this cluster or another one")
    @ApiResponse(responseCode = "503", description = "the group store did not confirm the write")
    @PostMapping("/pipeline-groups")
    public ResponseEntity<?> create(@RequestBody PipelineGroupSpec group, HttpServletRequest request) {
        try {
            groups.declare(group);
        }
        catch (IllegalStateException exists) {
            // Only the declaration's conflict is a 409: an IllegalStateException
            // elsewhere (Tomcat's malformed query
            // string, a closed connection) is not the caller's group clashing with
            // another.
            return refused(HttpStatus.CONFLICT, exists, request);
        }
        GroupView body = describe(group);
        AuditLog.done(Principals.caller(request).describe(), "declared group " + group.name() + " ("
                + group.pipelines().size() + " pipelines), placement " + body.placement());
        return ResponseEntity.status(HttpStatus.CREATED).body(body);
    }

    /**
     * @param id the group name
     * @return the group and its placement, 404 when unknown
     */
    @ApiResponse(responseCode = "200", description = "the group and its placement",
            content = @Content(schema = @Schema(implementation = GroupView.class)))
    @ApiResponse(responseCode = "404", description = "no pipeline group of that name")
    @GetMapping("/pipeline-groups/{id}")
    public ResponseEntity<?> group(@PathVariable String id) {
        return cluster.group(id)
            .<ResponseEntity<?>>map(g -> ResponseEntity.ok(describe(g)))
            .orElseGet(() -> notFound(id));
    }

    /**
     * Removes a group; {@code ?purge=true} also deletes its durable consumers, state and
     * stored events.
     * @param id the group name
     * @param purge delete consumers and state too
     * @param request the request, for the audit line
     * @return 204, or 404 when unknown
     */
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @ApiResponse(responseCode = "404", description = "no pipeline group of that name")
    @ApiResponse(responseCode = "503", description = "the group store did not confirm the delete")
    @DeleteMapping("/pipeline-groups/{id}")
    public ResponseEntity<?> delete(@PathVariable String id, @RequestParam(defaultValue = "false") boolean purge,
            HttpServletRequest request) {
        boolean removed = groups.remove(id, purge);
        AuditLog.done(Principals.caller(request).describe(),
                "delete group " + id + (purge ? " with purge" : "") + (removed ? ": removed" : ": no such group"));
        return removed ? ResponseEntity.noContent().build() : notFound(id);
    }

    /**
     * Injects one event at the group's {@code _external} entry: it follows every route
     * from {@code _external} whose pattern matches its type, into the partition its key
     * picks when the route leads into a partitioned pipeline (SPEC section 11; one
     * without a text key goes to the unpartitioned subject, where it is parked). Body:
     * {@code {"event_type": "...", "fields": {...}, "timestamp": "..."}}. Every injection
     * has an id, {@code ?id=} or a new UUID, answered in the 202 and in the 503: it seeds
     * the events' {@code Nats-Msg-Id}s, so a retry with the same id within the routing
     * stream's 2-minute duplicate window is stored once, whatever became of the first
     * attempt (issue 15).
     * @param id the group name
     * @param event the event
     * @param msgId the injection's id (1 to {@value EventInjector#MAX_ID_LENGTH} letters,
     * digits, {@code . _ : -}), or none for a new one
     * @param request the request, for the audit line
     * @return 202 {@code {"status": "injected", "id": "...", "routes": [...]}}; 400 for
     * an event over the length limits, with an event type of other characters than
     * letters, digits, {@code . _ : -}, or without a route; 404 for an unknown group; 413
     * for an event the server can never store (encoded, with its {@code Nats-Msg-Id}
     * header, over {@code max_payload}); 503 {@code {"error": "...", "id": "..."}} when
     * the substrate did not confirm in time (retry with that id)
     * @throws InterruptedException when interrupted while waiting for the substrate
     */
    @ResponseStatus(HttpStatus.ACCEPTED)
    @ApiResponse(responseCode = "202", description = "stored on the substrate for every route",
            content = @Content(schema = @Schema(implementation = InjectionAccepted.class)))
    @ApiResponse(responseCode = "400",
            description = "an event over the length limits, of an event type with other "
                    + "characters than letters, digits, . _ : -, or without a route; an ?id= of other characters")
    @ApiResponse(responseCode = "404", description = "no pipeline group of that name")
    @ApiResponse(responseCode = "413",
            description = "a body over varpulis.security.max-request-size, or an event "
                    + "the NATS server can never store (over its max_payload)")
    @ApiResponse(responseCode = "503", description = "the substrate did not confirm in time: retry with the id",
            content = @Content(schema = @Schema(implementation = InjectionNotConfirmed.class)))
    @PostMapping("/pipeline-groups/{id}/inject")
    public ResponseEntity<?> inject(@PathVariable String id, @RequestBody Event event,
            @RequestParam(name = "id", required = false) String msgId, HttpServletRequest request)
            throws InterruptedException {
        PipelineGroupSpec group = cluster.group(id).orElse(null);
        if (group == null) {
            return notFound(id);
        }
        checkLimits(event);
        String injection = msgId == null ? EventInjector.newId() : EventInjector.checkedId(msgId);
        List<PipelineGroupSpec.RouteSpec> entries = injector.entries(group, event);
        if (entries.isEmpty()) {
            return ResponseEntity.badRequest()
                .body(new ApiError(
                        "no route from _external in group " + id + " accepts event type " + event.eventType()));
        }
        String who = Principals.caller(request).describe();
        String what = "inject " + event.eventType() + " into group " + id + " (id " + injection + ")";
        String tooLarge = injector.neverStored(id, entries, event, injection);
        if (tooLarge != null) {
            AuditLog.refused(who, what + ": 413 " + tooLarge);
            return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(new ApiError(tooLarge));
        }
        try {
            injector.inject(group, entries, event, injection).get(10, TimeUnit.SECONDS);
        }
        catch (ExecutionException | TimeoutException | CompletionException e) {
            AuditLog.refused(who, what + ": the substrate did not confirm (" + e.getMessage() + ")");
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .body(new InjectionNotConfirmed(
                        "the substrate did not confirm the injection (" + e.getMessage() + "); it may still be stored "
                                + "once NATS is back: retry with ?id=" + injection + " so that it is stored once",
                        injection));
        }
        AuditLog.done(who, what + ": stored for " + entries.stream().map(r -> r.toPipeline()).toList());
        return ResponseEntity.accepted()
            .body(new InjectionAccepted("injected", injection, entries.stream().map(r -> r.toPipeline()).toList()));
    }

    /**
     * @return every group's placement and edges (subject and durable consumer of each),
     * and by worker what it can run and any deploy backoff ({@code "placement_gate"},
     * SPEC section 17)
     */
    @GetMapping("/topology")
    public Map<String, Object> topology() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("coordinator_id", cluster.coordinatorId());
        body.put("leader", cluster.leader().leader());
        body.put("substrate", substrate);
        body.put("workers", cluster.workers().stream().map(WorkerRecord::workerId).toList());
        body.put("groups", cluster.topology());
        body.put("placement_gate", cluster.placementGate());
        return body;
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<ApiError> badRequest(IllegalArgumentException e, HttpServletRequest request) {
        return refused(HttpStatus.BAD_REQUEST, e, request);
    }

    @ExceptionHandler(GroupStoreUnavailableException.class)
    ResponseEntity<ApiError> storeUnavailable(GroupStoreUnavailableException e, HttpServletRequest request) {
        return refused(HttpStatus.SERVICE_UNAVAILABLE, e, request);
    }

    /** A refused write is audited too: who tried what, and why it was refused. */
    private static ResponseEntity<ApiError> refused(HttpStatus status, RuntimeException e, HttpServletRequest request) {
        RequestAudit.refused(request, status.value(), e.getMessage());
        return ResponseEntity.status(status).body(new ApiError(e.getMessage()));
    }

    private void checkLimits(Event event) {
        if (event.eventType() != null && event.eventType().length() > limits.maxEventTypeLength()) {
            throw new IllegalArgumentException("event_type is " + event.eventType().length() + " characters long; "
                    + "at most " + limits.maxEventTypeLength() + " (varpulis.security.max-event-type-length)");
        }
        if (event.eventType() != null && !EVENT_TYPE.matcher(event.eventType()).matches()) {
            throw new IllegalArgumentException("event_type may hold only letters, digits, '.', '_', ':' and '-' "
                    + "(no spaces or control characters), for example SshAuthFailure");
        }
        if (event.fields() != null) {
            event.fields()
                .keySet()
                .stream()
                .filter(name -> name.length() > limits.maxFieldNameLength())
                .findFirst()
                .ifPresent(name -> {
                    throw new IllegalArgumentException("field name '" + name.substring(0, 32) + "...' is "
                            + name.length() + " characters long; at most " + limits.maxFieldNameLength()
                            + " (varpulis.security.max-field-name-length)");
                });
        }
    }

    private ResponseEntity<ApiError> notFound(String id) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(new ApiError("no pipeline group named " + id));
    }

    private GroupView describe(PipelineGroupSpec group) {
        return new GroupView(group, cluster.placementOf(group.name()), cluster.pipelinesOf(group.name()),
                cluster.adoptingUntil().orElse(null));
    }

}
