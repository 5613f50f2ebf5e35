package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.varpulis.delivery.DeadLetterParker;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.ProcessorRegistry;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The coordinator: answers registrations on {@code varpulis.cluster.register} (every coordinator records them, the
 * worker takes the first reply), consumes heartbeats with its durable {@code hb_{coordinator id}}, marks a worker
 * unhealthy after heartbeat-timeout, and keeps every pipeline of every group placed on a ready worker: an unhealthy
 * worker's pipelines move to the least-loaded ready worker (their durable consumers, named per pipeline, carry on
 * where the dead worker stopped), and when it comes back the pipelines it no longer owns are undeployed on it.
 * Commands to workers are core request/reply.
 */
public class CoordinatorNode implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(CoordinatorNode.class);

    private final String coordinatorId;
    private final ClusterProperties cluster;
    private final Connection connection;
    private final HeartbeatListener heartbeats;
    private final ClusterTransport transport;
    private final NatsProperties.Consumer consumerSettings;
    private final ClusterState state;
    private final ProcessorRegistry processors;
    private final ObjectMapper mapper;
    private final JetStreamAdmin admin;
    private final GroupStore groups;
    private volatile Instant placementFrom = Instant.MAX;
    private final Map<String, Instant> commandsInFlight = new ConcurrentHashMap<>();
    private volatile boolean running;
    private ScheduledExecutorService scheduler;
    private Dispatcher registrations;
    private Consumption heartbeatConsumption;

    /**
     * @param coordinatorId    the coordinator's stable id
     * @param cluster          cluster settings (timeouts, declared groups)
     * @param connection       the connection (registration and commands are core request/reply on it)
     * @param transport        the substrate (heartbeats)
     * @param consumerSettings durable consumer settings
     * @param state            the cluster bookkeeping
     * @param processors       validates the processors of declared groups
     * @param mapper           JSON of commands and replies
     * @param admin            the JetStream admin, to delete a purged group's consumers and state; null on core
     * @param metrics          counts applied and stale heartbeats
     * @param parker           parks undecodable heartbeats
     * @param groups           keeps the declared groups across coordinator restarts
     */
    public CoordinatorNode(String coordinatorId, ClusterProperties cluster, Connection connection,
                           ClusterTransport transport, NatsProperties.Consumer consumerSettings, ClusterState state,
                           ProcessorRegistry processors, ObjectMapper mapper, JetStreamAdmin admin,
                           SubstrateMetrics metrics, DeadLetterParker parker, GroupStore groups) {
        this.coordinatorId = coordinatorId;
        this.cluster = cluster;
        this.connection = connection;
        this.transport = transport;
        this.consumerSettings = consumerSettings;
        this.heartbeats = new HeartbeatListener(coordinatorId, cluster.getHeartbeatTimeout(), Clock.systemUTC(),
                mapper, this::onHeartbeat, metrics, parker);
        this.state = state;
        this.processors = processors;
        this.mapper = mapper;
        this.admin = admin;
        this.groups = groups;
    }

    @Override
    public synchronized void start() {
        for (PipelineGroupSpec stored : groups.load()) {
            state.addGroup(stored);
            log.info("pipeline group {} restored from the group store", stored.name());
        }
        cluster.getGroups().forEach((name, group) -> {
            PipelineGroupSpec named = withName(name, group);
            if (state.group(named.name()).isEmpty()) {
                declare(named);
            }
        });
        // Orphaned pipelines are placed only after one heartbeat-timeout, so that the pipelines the workers still
        // run are adopted from their heartbeats first instead of being moved.
        placementFrom = Instant.now().plus(cluster.getHeartbeatTimeout());
        scheduler = Executors.newSingleThreadScheduledExecutor(
                DaemonThreads.named("varpulis-coordinator-" + coordinatorId));
        registrations = connection.createDispatcher(this::onRegistration);
        registrations.subscribe(Subjects.REGISTER);
        heartbeatConsumption = heartbeats.start(transport, consumerSettings);
        long interval = cluster.getHeartbeatInterval().toMillis();
        scheduler.scheduleWithFixedDelay(this::tick, interval, interval, TimeUnit.MILLISECONDS);
        running = true;
        log.info("coordinator {} started on {} (substrate {}, heartbeat-timeout {} ms)", coordinatorId,
                connection.getConnectedUrl(), transport.substrate(), cluster.getHeartbeatTimeout().toMillis());
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        scheduler.shutdownNow();
        heartbeatConsumption.close();
        if (connection.getStatus() != Connection.Status.CLOSED) {
            connection.closeDispatcher(registrations);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * @return the lifecycle phase: stops after HTTP requests finished, before the connection closes
     */
    @Override
    public int getPhase() {
        return NodeLifecycle.PHASE;
    }

    /**
     * @return this coordinator's id
     */
    public String coordinatorId() {
        return coordinatorId;
    }

    /**
     * @return the bookkeeping, read-only use
     */
    public ClusterState state() {
        return state;
    }

    /**
     * Adds a group and places its pipelines on ready workers (those without a ready worker are placed when one
     * registers).
     *
     * @param group the group
     * @return the placement of its pipelines after this call, {@code pipeline -> worker id} (missing: pending)
     * @throws IllegalArgumentException when the group is invalid (names, routes, processor settings)
     * @throws IllegalStateException    when a group of that name exists
     */
    public Map<String, String> declare(PipelineGroupSpec group) {
        group.validate();
        processors.validate(group);
        rejectDurableNameCollisions(group);
        if (!state.addGroup(group)) {
            throw new IllegalStateException("pipeline group " + group.name() + " already exists; delete it first");
        }
        groups.save(group);
        log.info("pipeline group {} declared with {} pipeline(s)", group.name(), group.pipelines().size());
        deployAll(state.place(group.name()));
        return placementOf(group.name());
    }

    /**
     * ADR-007's durable names replace every character outside {@code [A-Za-z0-9_-]} with {@code _}, so two edges
     * can map to one durable ({@code g}/{@code a_b} and {@code g_a}/{@code b}); sharing it would hand one edge's
     * events to the other. Refused when the group is declared.
     */
    private void rejectDurableNameCollisions(PipelineGroupSpec group) {
        Map<String, String> subjects = new java.util.HashMap<>();
        for (PipelineGroupSpec known : state.groups()) {
            durables(known).forEach(subjects::put);
        }
        durables(group).forEach((durable, subject) -> {
            String other = subjects.putIfAbsent(durable, subject);
            if (other != null && !other.equals(subject)) {
                throw new IllegalArgumentException("route edge " + subject + " would share the durable consumer "
                        + durable + " with " + other + " (names are sanitised to [A-Za-z0-9_-]); rename the group "
                        + "or a pipeline");
            }
        });
    }

    private static Map<String, String> durables(PipelineGroupSpec group) {
        Map<String, String> durables = new LinkedHashMap<>();
        for (PipelineGroupSpec.RouteSpec route : group.routes()) {
            RouteEdge edge = new RouteEdge(group.name(), route.fromPipeline(), route.toPipeline());
            durables.put(DurableNames.routeConsumer(edge.to(), edge.subject()), edge.subject());
        }
        return durables;
    }

    /**
     * Removes a group: undeploys its pipelines on their workers; with purge, also deletes its durable consumers and
     * key-value state (JetStream), so a group declared again starts from nothing.
     *
     * @param name  the group name
     * @param purge delete consumers and state too
     * @return {@code false} when the group was unknown
     */
    public boolean remove(String name, boolean purge) {
        PipelineGroupSpec group = state.group(name).orElse(null);
        var removed = state.removeGroup(name);
        if (removed.isEmpty()) {
            return false;
        }
        groups.delete(name);
        // A worker that does not confirm (down, or too slow) is not a reason to stop: the pipelines it still runs are
        // undeployed when its next heartbeat reports them, like any pipeline it no longer owns.
        CompletableFuture.allOf(removed.get().entrySet().stream().map(e -> command(e.getValue(), Commands.UNDEPLOY,
                new Commands.Undeploy(name, e.getKey().substring(name.length() + 1)))
                .exceptionally(error -> {
                    log.warn("worker {} did not confirm the undeploy of {} ({}); it is undeployed when the worker "
                            + "heartbeats again", e.getValue(), e.getKey(), error.toString());
                    return null;
                })).toArray(CompletableFuture[]::new)).join();
        if (purge && admin != null && group != null) {
            try {
                GroupResources.purge(connection, group);
            } catch (Exception e) {
                log.warn("pipeline group {} removed, but its JetStream objects were not all purged: {}", name,
                        e.toString());
            }
        }
        log.info("pipeline group {} removed{}", name, purge ? " and purged" : "");
        return true;
    }

    /**
     * @param group a group name
     * @return where its pipelines run, {@code pipeline -> worker id}
     */
    public Map<String, String> placementOf(String group) {
        return state.placement().entrySet().stream().filter(e -> e.getKey().startsWith(group + "/"))
                .collect(Collectors.toMap(e -> e.getKey().substring(group.length() + 1), Map.Entry::getValue,
                        (a, b) -> a, LinkedHashMap::new));
    }

    /**
     * Applies a fresh heartbeat: an unknown worker is asked to register again; a known one is reconciled with its
     * placement (missing pipelines deployed, pipelines it no longer owns undeployed).
     *
     * @param workerId  the worker
     * @param heartbeat its heartbeat
     * @param sentAt    when it was stored: the worker's last sign of life
     */
    public void onHeartbeat(String workerId, WorkerHeartbeat heartbeat, Instant sentAt) {
        if (state.heartbeat(workerId, heartbeat, sentAt).isEmpty()) {
            if (firstCommandIn(workerId + "@register", cluster.getHeartbeatTimeout())) {
                log.info("heartbeat from unknown worker {} (this coordinator restarted?); asking it to register",
                        workerId);
                command(workerId, Commands.REGISTER, Map.of());
            }
            return;
        }
        Set<String> running = heartbeat.pipelineMetrics().stream().filter(m -> m.group() != null)
                .map(m -> m.group() + "/" + m.pipelineName()).collect(Collectors.toSet());
        for (String key : running) {
            switch (state.reportRunning(key, workerId)) {
                case ADOPTED -> log.info("pipeline {} runs on worker {}: placement adopted", key, workerId);
                case ELSEWHERE -> {
                    String[] parts = key.split("/", 2);
                    if (firstCommandIn(key + "@" + workerId + "@undeploy", cluster.getCommandTimeout())) {
                        log.info("worker {} still runs {}, which now runs elsewhere; undeploying it there",
                                workerId, key);
                        command(workerId, Commands.UNDEPLOY, new Commands.Undeploy(parts[0], parts[1]));
                    }
                }
                case OWNED, UNKNOWN_GROUP -> {
                    // Nothing to do: a pipeline of a group this coordinator does not know is left alone.
                }
            }
        }
        for (String key : state.pipelinesOf(workerId)) {
            if (!running.contains(key)) {
                deploy(key, workerId);
            }
        }
    }

    private void tick() {
        try {
            for (String workerId : state.expire(cluster.getHeartbeatTimeout())) {
                log.warn("worker {} missed its heartbeats for {} ms: unhealthy; moving its pipelines {}", workerId,
                        cluster.getHeartbeatTimeout().toMillis(), state.pipelinesOf(workerId));
            }
            if (Instant.now().isAfter(placementFrom)) {
                deployAll(state.place());
            }
            Instant forgotten = Instant.now().minus(cluster.getHeartbeatTimeout().multipliedBy(10));
            commandsInFlight.values().removeIf(sent -> sent.isBefore(forgotten));
        } catch (RuntimeException e) {
            log.warn("coordinator tick failed: {}", e.toString());
        }
    }

    private void deployAll(Map<String, String> moves) {
        moves.forEach(this::deploy);
    }

    private void deploy(String key, String workerId) {
        String[] parts = key.split("/", 2);
        PipelineGroupSpec group = state.group(parts[0]).orElse(null);
        if (group == null) {
            return;
        }
        String flightKey = key + "@" + workerId;
        if (!firstCommandIn(flightKey, cluster.getCommandTimeout())) {
            return;
        }
        command(workerId, Commands.DEPLOY, new Commands.Deploy(group, parts[1]))
                .whenComplete((reply, error) -> {
                    commandsInFlight.remove(flightKey);
                    if (error == null && reply != null && !reply.has("error")) {
                        log.info("pipeline {} placed on worker {} ({})", key, workerId, reply.path("status").asText());
                    } else {
                        log.warn("deploy of {} on worker {} failed: {}", key, workerId,
                                error != null ? error.getMessage() : reply);
                    }
                });
    }

    /** Whether no command with this key was sent within the period; records this one. Stops command storms. */
    private boolean firstCommandIn(String key, Duration period) {
        Instant now = Instant.now();
        boolean[] first = {false};
        commandsInFlight.compute(key, (k, previous) -> {
            if (previous != null && previous.isAfter(now.minus(period))) {
                return previous;
            }
            first[0] = true;
            return now;
        });
        return first[0];
    }

    private CompletableFuture<JsonNode> command(String workerId, String command, Object payload) {
        try {
            byte[] body = mapper.writeValueAsBytes(payload);
            return connection.requestWithTimeout(Subjects.command(workerId, command), body,
                            cluster.getCommandTimeout())
                    .thenApply(this::readReply);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private JsonNode readReply(Message reply) {
        try {
            return mapper.readTree(reply.getData());
        } catch (Exception e) {
            throw new IllegalStateException("unreadable reply: " + new String(reply.getData(),
                    StandardCharsets.UTF_8), e);
        }
    }

    private void onRegistration(Message message) {
        Object reply;
        try {
            Registration.Request request = mapper.readValue(message.getData(), Registration.Request.class);
            if (!Subjects.isToken(request.workerId())) {
                reply = new Registration.Reply(request.workerId(), null, null,
                        "worker_id must be a NATS token (letters, digits, '-', '_')");
            } else if (request.substrate() != null && !request.substrate().equals(transport.substrate().id())) {
                // A core worker in a jetstream cluster would publish outputs nobody stores and lose them.
                reply = new Registration.Reply(request.workerId(), null, null, "worker " + request.workerId()
                        + " runs on the " + request.substrate() + " substrate, this coordinator on "
                        + transport.substrate().id() + ": set VARPULIS_NATS_SUBSTRATE=" + transport.substrate().id()
                        + " on the worker");
                log.warn("refused registration of worker {}: substrate {} differs from the cluster's {}",
                        request.workerId(), request.substrate(), transport.substrate().id());
            } else if (cluster.getApiKey() != null && !cluster.getApiKey().equals(request.apiKey())) {
                reply = new Registration.Reply(request.workerId(), null, null, "invalid api_key");
                log.warn("refused registration of worker {}: invalid api_key", request.workerId());
            } else {
                state.register(request);
                log.info("worker {} registered ({}, max {} pipelines)", request.workerId(), request.address(),
                        request.capacity() == null ? "?" : request.capacity().maxPipelines());
                // Whole seconds, rounded up: a sub-second interval must not read as 0.
                reply = new Registration.Reply(request.workerId(), "registered",
                        (cluster.getHeartbeatInterval().toMillis() + 999) / 1000, null);
                if (running) {
                    scheduler.execute(this::tick);
                }
            }
        } catch (Exception e) {
            reply = new Registration.Reply(null, null, null, "unreadable registration: " + e.getMessage());
        }
        if (message.getReplyTo() != null) {
            try {
                connection.publish(message.getReplyTo(), mapper.writeValueAsBytes(reply));
            } catch (Exception e) {
                log.warn("could not answer a registration: {}", e.toString());
            }
        }
    }

    private static PipelineGroupSpec withName(String key, PipelineGroupSpec group) {
        return group.name() != null ? group : new PipelineGroupSpec(key, group.pipelines(), group.routes());
    }

    /**
     * @return every group and its placement, for the topology API
     */
    public List<Map<String, Object>> topology() {
        return state.groups().stream().map(group -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("group", group.name());
            entry.put("placement", placementOf(group.name()));
            entry.put("edges", group.routes().stream().map(r -> {
                RouteEdge edge = new RouteEdge(group.name(), r.fromPipeline(), r.toPipeline());
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("from", r.fromPipeline());
                e.put("to", r.toPipeline());
                e.put("event_types", r.eventTypes());
                e.put("subject", edge.subject());
                e.put("durable", DurableNames.routeConsumer(edge.to(), edge.subject()));
                return e;
            }).toList());
            return entry;
        }).toList();
    }
}
