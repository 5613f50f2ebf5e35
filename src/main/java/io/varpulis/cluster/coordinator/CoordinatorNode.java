package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.Message;
import io.nats.client.api.ClusterInfo;
import io.nats.client.api.StreamInfo;
import io.varpulis.cluster.node.ClusterProperties;
import io.varpulis.cluster.node.NodeHealth;
import io.varpulis.cluster.node.NodeLifecycle;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.container.DeliveryContainer;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;
import io.varpulis.pipeline.ProcessorRegistry;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.RequestReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A coordinator (SPEC sections 5 and 9). Every coordinator of a cluster answers its registrations on
 * {@code varpulis.cluster.register} (the worker takes the first reply), consumes every heartbeat with its own durable
 * {@code hb_{coordinator id}}, watches the group store, and knows the workers, their health and where each pipeline
 * runs (from the workers' heartbeats): a follower is warm. Exactly one of them leads ({@link LeaderElection}); only
 * the leader places pipelines and sends commands, each carrying its epoch.
 * <p>The leader keeps every pipeline of every group placed on a ready worker: an unhealthy worker's pipelines move
 * to the least-loaded ready worker (their durable consumers, named per pipeline, carry on where the dead worker
 * stopped); a failed deploy leaves the pipeline unplaced, with the failure shown, until a later round places it; when
 * a worker comes back or a new one joins, pipelines move onto it one at a time while the load is uneven by two or
 * more. A coordinator that just started, or a follower just elected, first adopts what the workers report running
 * for one heartbeat-timeout (one heartbeat-interval) instead of moving it.
 * <p>A coordinator cut off from NATS (its connection, or its heartbeat consumer) does not count the heartbeats it
 * could not receive against the workers: each gets a full heartbeat-timeout from the moment it is reachable again.
 * Registrations and heartbeats of another cluster are left unanswered and reported, never applied.
 */
public class CoordinatorNode implements SmartLifecycle, NodeHealth {

    private static final Logger log = LoggerFactory.getLogger(CoordinatorNode.class);

    /** The longest wait between two health checks of the workers. */
    private static final Duration HEALTH_CHECK_PERIOD = Duration.ofSeconds(1);

    private final String coordinatorId;
    private final ClusterProperties cluster;
    private final Connection connection;
    private final RequestReply requests;
    private final HeartbeatListener heartbeats;
    private final ClusterTransport transport;
    private final DeliveryContainerFactory containers;
    private final NatsProperties.Consumer consumerSettings;
    private final ClusterState state;
    private final ProcessorRegistry processors;
    private final ObjectMapper mapper;
    private final JetStreamAdmin admin;
    private final GroupStore groups;
    private final LeaderElection election;
    private final MeterRegistry registry;
    private final Clock clock;
    private final ServerClock serverClock;
    private final PlacementGate gate;
    private final UnregisteredWorkers unregistered;
    private final Map<String, Instant> commandsInFlight = new ConcurrentHashMap<>();
    /** {@code key@worker} of pipelines a worker reports whose group (or unit) this cluster does not have, since. */
    private final Map<String, Instant> unknownReported = new ConcurrentHashMap<>();
    private final Map<String, String> otherClusters = new ConcurrentHashMap<>();
    /** When this coordinator was made, on {@link System#nanoTime()}: the placement rounds count from it. */
    private final PlacementRounds rounds;
    private final WorkerAdmission admission;
    private volatile Instant startedAt = Instant.now();
    private volatile Instant placementFrom = Instant.MAX;
    private volatile long livenessFrom; // when it last regained NATS, on ClusterState.nanoTime()
    private volatile boolean reachable = true;
    private volatile boolean running;
    private ScheduledExecutorService scheduler;
    private Dispatcher registrations;
    private DeliveryContainer heartbeatConsumption;
    private AutoCloseable groupWatch;
    private JetStreamManagement probe;
    private LateWorkers lateWorkers;

    /**
     * @param coordinatorId    the coordinator's stable id
     * @param cluster          cluster settings (name, timeouts, declared groups)
     * @param connection       the connection (registration and commands are core request/reply on it)
     * @param requests         sends the commands and serves the registrations (with the trace context when observed)
     * @param containers       runs the heartbeat consumer on the substrate
     * @param consumerSettings durable consumer settings
     * @param state            the cluster bookkeeping
     * @param processors       validates the processors of declared groups
     * @param mapper           JSON of commands and replies
     * @param admin            the JetStream admin, to delete a purged group's consumers and state; null on core
     * @param metrics          counts applied and stale heartbeats; its registry gets the cluster gauges
     * @param groups           the cluster's groups, shared by its coordinators
     * @param election         decides whether this coordinator leads
     */
    public CoordinatorNode(String coordinatorId, ClusterProperties cluster, Connection connection,
                           RequestReply requests, DeliveryContainerFactory containers,
                           NatsProperties.Consumer consumerSettings, ClusterState state, ProcessorRegistry processors,
                           ObjectMapper mapper, JetStreamAdmin admin, SubstrateMetrics metrics,
                           GroupStore groups, LeaderElection election) {
        this.coordinatorId = coordinatorId;
        this.cluster = cluster;
        this.connection = connection;
        this.requests = requests;
        this.containers = containers;
        this.transport = containers.transport();
        this.consumerSettings = consumerSettings;
        this.clock = state.clock();
        this.serverClock = new ServerClock(clock);
        this.heartbeats = new HeartbeatListener(coordinatorId, cluster.getHeartbeatTimeout(), serverClock,
                mapper, this::onHeartbeat, metrics);
        this.state = state;
        this.processors = processors;
        this.mapper = mapper;
        this.admin = admin;
        this.groups = groups;
        this.election = election;
        this.registry = metrics.registry();
        this.gate = new PlacementGate(clock, cluster.getHeartbeatInterval(), registry);
        this.unregistered = new UnregisteredWorkers(clock, cluster.getHeartbeatTimeout(),
                cluster.getApiKey() != null);
        state.placeOnlyWhere(gate);
        this.admission = new WorkerAdmission(cluster, connection, mapper, transport.substrate().id(), gate, state,
                unregistered, this::noteOtherCluster, () -> {
                    if (running && isLeader()) {
                        placeSoon();
                    }
                });
        this.rounds = new PlacementRounds(cluster, state, gate, clock, election, this::command, this::firstCommandIn,
                commandsInFlight, System.nanoTime());
    }

    @Override
    public synchronized void start() {
        startedAt = clock.instant();
        livenessFrom = state.nanoTime();
        groupWatch = groups.watch(new GroupStore.Listener() {
            @Override
            public void stored(PipelineGroupSpec group) {
                onGroupStored(group);
            }

            @Override
            public void removed(String name) {
                onGroupRemoved(name);
            }
        });
        cluster.getGroups().forEach((name, group) -> {
            PipelineGroupSpec named = withName(name, group);
            if (state.group(named.name()).isEmpty()) {
                try {
                    declare(named);
                } catch (IllegalStateException exists) {
                    log.debug("configured group {} was stored by another coordinator meanwhile", named.name());
                }
            }
        });
        // Orphaned pipelines are placed only after one heartbeat-timeout, so that the pipelines the workers still
        // run are adopted from their heartbeats first instead of being moved.
        placementFrom = startedAt.plus(cluster.getHeartbeatTimeout());
        scheduler = Executors.newSingleThreadScheduledExecutor(
                DaemonThreads.named("varpulis-coordinator-" + coordinatorId));
        registrations = connection.createDispatcher(requests.serving(admission::onRegistration));
        registrations.subscribe(Subjects.REGISTER);
        if (admin != null) {
            probe = probe(connection);
            // The server's time before the first heartbeat: a replayed one is then measured against it.
            heartbeatConsumerAnswers();
        }
        lateWorkers = new LateWorkers(cluster.getHeartbeatTimeout(), probe == null ? LateWorkers.Evidence.none()
                : new ServerProgress(probe, state, state::nanoTime), state::nanoTime, registry);
        heartbeatConsumption = heartbeats.start(containers, consumerSettings);
        CoordinatorGauges.register(registry, coordinatorId, cluster.getName(), election, state);
        // Health is checked every second (at most), so a worker is unhealthy within a second of its timeout; placement
        // rounds run every heartbeat-interval, or at once when something asks for one.
        long period = Math.min(cluster.getHeartbeatInterval().toMillis(), HEALTH_CHECK_PERIOD.toMillis());
        scheduler.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
        running = true;
        election.start(this::onLeadership);
        log.info("coordinator {} of cluster {} started on {} (substrate {}, heartbeat-timeout {} ms, leader lease "
                        + "{} ms)", coordinatorId, cluster.getName(), connection.getConnectedUrl(),
                transport.substrate(), cluster.getHeartbeatTimeout().toMillis(), election.ttl().toMillis());
    }

    private JetStreamManagement probe(Connection nc) {
        try {
            // One round-trip per tick, answered in milliseconds when the consumer is there; bounded when it is not.
            return nc.jetStreamManagement(JetStreamOptions.builder().requestTimeout(Duration.ofSeconds(1)).build());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot open JetStream management: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        election.close();
        scheduler.shutdownNow();
        heartbeatConsumption.stop();
        try {
            groupWatch.close();
        } catch (Exception e) {
            log.debug("closing the group watch: {}", e.toString());
        }
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
     * @return whether this coordinator leads its cluster now
     */
    public boolean isLeader() {
        return election.isLeader();
    }

    /**
     * Adds a group to the group store, where every coordinator of the cluster sees it; on the leader, places its
     * pipelines on ready workers and waits (up to command-timeout) for the workers' answers, so that the result says
     * what runs. A follower leaves the placing to the leader.
     *
     * @param group the group
     * @return the placement of its pipelines after this call, {@code pipeline -> worker id} (running only)
     * @throws IllegalArgumentException when the group is invalid (names, routes, processor settings)
     * @throws IllegalStateException    when a group of that name exists in this cluster, or another live cluster of
     *                                  this NATS account uses the name (their route subjects and durable consumers
     *                                  would be shared)
     * @throws GroupStoreUnavailableException when the group store did not confirm the write
     */
    public Map<String, String> declare(PipelineGroupSpec group) {
        group.validate(cluster.getMaxPartitions());
        processors.validate(group);
        GroupChecks.rejectDurableNameCollisions(state.groups(), group);
        GroupChecks.rejectNameOfAnotherCluster(group, groups.otherClusters(),
                other -> election.otherClusters().containsKey(other));
        groups.create(group);
        state.addGroup(group);
        log.info("pipeline group {} declared with {} pipeline(s)", group.name(), group.pipelines().size());
        if (isLeader()) {
            awaitQuietly(CompletableFuture.allOf(state.place(group.name(), rounds::nextPlacementEpoch).entrySet()
                    .stream().map(e -> deploy(e.getKey(), e.getValue())).toArray(CompletableFuture[]::new)));
        }
        return placementOf(group.name());
    }

    private void awaitQuietly(CompletableFuture<?> replies) {
        try {
            replies.get(cluster.getCommandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Each deploy records its own outcome; what has not answered yet shows as deploying.
        }
    }

    /**
     * Removes a group from the group store (every coordinator of the cluster forgets it) and undeploys its
     * pipelines (the leader: at once; a follower: the leader does, seeing the delete); with purge, also deletes its
     * durable consumers and key-value state (JetStream), once its pipelines stopped, so a group declared again
     * starts from nothing.
     *
     * @param name  the group name
     * @param purge delete consumers and state too
     * @return {@code false} when the group was unknown
     * @throws GroupStoreUnavailableException when the store did not confirm the delete
     */
    public boolean remove(String name, boolean purge) {
        PipelineGroupSpec group = state.group(name).orElse(null);
        Optional<Map<String, String>> removed = state.removeGroup(name);
        if (group == null || removed.isEmpty()) {
            return false;
        }
        try {
            groups.delete(name);
        } catch (RuntimeException e) {
            state.addGroup(group);
            throw e;
        }
        if (isLeader()) {
            undeployAll(name, removed.get()).join();
        } else if (purge) {
            GroupChecks.awaitStoppedEverywhere(name, state, clock, cluster);
        }
        if (purge && admin != null) {
            try {
                GroupResources.purgeObjects(connection, group);
            } catch (Exception e) {
                log.warn("pipeline group {} removed, but its JetStream objects were not all purged: {}", name,
                        e.toString());
            }
        }
        log.info("pipeline group {} removed{}", name, purge ? " and purged" : "");
        return true;
    }

    private CompletableFuture<Void> undeployAll(String name, Map<String, String> placed) {
        // A worker that does not confirm (down, or too slow) is not a reason to stop: the pipelines it still runs are
        // undeployed when its next heartbeat reports them, like any pipeline it no longer owns.
        return CompletableFuture.allOf(placed.entrySet().stream().map(e -> command(e.getValue(), Commands.UNDEPLOY,
                Commands.Undeploy.of(PipelineUnit.parse(e.getKey()), null))
                .exceptionally(error -> {
                    log.warn("worker {} did not confirm the undeploy of {} ({}); it is undeployed when the worker "
                            + "heartbeats again", e.getValue(), e.getKey(), error.toString());
                    return null;
                })).toArray(CompletableFuture[]::new));
    }

    private void onGroupStored(PipelineGroupSpec group) {
        if (state.addGroup(group)) {
            log.info("pipeline group {} found in the group store", group.name());
            if (running && isLeader()) {
                placeSoon();
            }
        }
    }

    /**
     * A registered worker of this cluster runs a pipeline whose group this cluster no longer has, or a unit the
     * group no longer declares (removed, or re-declared with fewer partitions, while the worker was cut off and the
     * undeploy never reached it): the leader undeploys it there. Only when all of these hold, so that nothing that
     * should run is stopped:
     * <ul>
     * <li>the group store is durable (JetStream): on core a restarted coordinator has forgotten the groups declared
     * over the API, and what the workers still run is left running as before;</li>
     * <li>this coordinator is past its adoption window (after its start or election) and has known the unit as
     * unknown for at least a heartbeat interval of its own clock, so that a group declared a moment ago on another
     * coordinator, which the watch shows within milliseconds, is never taken for a removed one;</li>
     * <li>the store itself, asked directly, holds no entry for the group (an entry this version cannot read is
     * never taken for a removed group), and the name is not another cluster's or a pre-cluster-name group's.</li>
     * </ul>
     * Without this the worker would run it, and consume its edges, for as long as it lives.
     */
    private void undeployUnknown(String workerId, String key, long epoch) {
        if (!groups.isDurable()) {
            return;
        }
        Instant now = clock.instant();
        Instant since = unknownReported.computeIfAbsent(key + "@" + workerId, k -> now);
        if (!isLeader() || now.isBefore(placementFrom) || since.plus(cluster.getHeartbeatInterval()).isAfter(now)) {
            return;
        }
        PipelineUnit unit = PipelineUnit.parse(key);
        if (groups.otherClusters().values().stream().anyMatch(names -> names.contains(unit.group()))) {
            return;
        }
        if (state.group(unit.group()).isEmpty()) {
            try {
                if (groups.holds(unit.group())) {
                    return;
                }
            } catch (GroupStoreUnavailableException e) {
                log.debug("group store not answered about {}: {}", unit.group(), e.toString());
                return;
            }
        }
        if (!firstCommandIn(key + "@" + workerId + "@undeploy", cluster.getCommandTimeout())) {
            return;
        }
        log.warn("worker {} runs {}, which cluster {} no longer has (removed while the worker was unreachable?); "
                + "undeploying it there", workerId, key, cluster.getName());
        command(workerId, Commands.UNDEPLOY, Commands.Undeploy.of(unit, epoch));
    }

    private void onGroupRemoved(String name) {
        state.removeGroup(name).ifPresent(placed -> {
            log.info("pipeline group {} was removed from the group store", name);
            if (running && isLeader()) {
                undeployAll(name, placed);
            }
        });
    }

    /**
     * @param group a group name
     * @return where its pipelines run, {@code pipeline -> worker id} ({@code pipeline/partition -> worker id} for
     * each partition of a partitioned pipeline, SPEC section 11): confirmed placements only
     */
    public Map<String, String> placementOf(String group) {
        return CoordinatorViews.placementOf(state, group);
    }

    /**
     * @param group a group name
     * @return every pipeline of the group (every partition, as {@code pipeline/partition}) with its placement state,
     * in declaration order
     */
    public Map<String, PipelineView> pipelinesOf(String group) {
        return CoordinatorViews.pipelinesOf(state, group, adoptingUntil(), this::leaderId);
    }

    /**
     * @return until when this coordinator adopts what the workers report instead of placing orphaned pipelines
     * (after its start, or its election), empty once that is over
     */
    public Optional<Instant> adoptingUntil() {
        Instant until = placementFrom;
        return until.isAfter(clock.instant()) ? Optional.of(until) : Optional.empty();
    }

    private String leaderId() {
        return election.current().map(LeaderElection.Leader::leader).orElse(null);
    }

    /**
     * Applies a fresh heartbeat of this cluster: an unknown worker is asked (by the leader) to register again; a
     * known one is reconciled with its placement (on the leader: missing pipelines deployed, pipelines it no longer
     * owns undeployed; on a follower: what it runs is recorded).
     *
     * @param workerId  the worker
     * @param heartbeat its heartbeat
     * @param age       how long ago it was stored, on the server's clock: the worker was alive then
     * @return whether it was applied: {@code false} for another cluster's worker or one not registered here
     */
    public boolean onHeartbeat(String workerId, WorkerHeartbeat heartbeat, Duration age) {
        String from = heartbeat.cluster() == null ? ClusterProperties.DEFAULT_NAME : heartbeat.cluster();
        if (!from.equals(cluster.getName())) {
            noteOtherCluster(from, "heartbeats of worker " + workerId);
            return false;
        }
        if (state.heartbeat(workerId, heartbeat, age).isEmpty()) {
            unregistered.heartbeat(workerId);
            if (state.worker(workerId).isPresent()) {
                // It registered between the lookup above and the line before: listed as both until its timeout.
                unregistered.registered(workerId);
            }
            // Its copies of pipelines placed elsewhere stop now, not once it registered again (issue 25, item 6).
            heartbeat.pipelineMetrics().stream().filter(m -> m.group() != null
                            && state.supersedes(m.unitKey(), workerId, m.epochOrZero()))
                    .forEach(m -> undeployStaleCopy(workerId, m.unitKey(), m.epochOrZero()));
            if (firstCommandIn(workerId + "@register", cluster.getHeartbeatTimeout())) {
                log.info("heartbeat from unknown worker {} (this coordinator restarted?); asking it to register",
                        workerId);
                if (isLeader()) {
                    command(workerId, Commands.REGISTER, Map.of()).whenComplete((reply, error) ->
                            admission.onRegisterAnswer(workerId, reply, error));
                } else {
                    askToRegister(workerId);
                }
            }
            return false;
        }
        Set<String> reported = ConcurrentHashMap.newKeySet();
        for (WorkerHeartbeat.PipelineMetric metric : heartbeat.pipelineMetrics()) {
            if (metric.group() == null) {
                continue;
            }
            String key = metric.unitKey();
            reported.add(key);
            long epoch = metric.epochOrZero();
            ClusterState.Report report = state.reportRunning(key, workerId, epoch);
            if (report != ClusterState.Report.UNKNOWN_GROUP) {
                unknownReported.remove(key + "@" + workerId);
            }
            switch (report) {
                case ADOPTED -> log.info("pipeline {} runs on worker {} (placement epoch {}): placement adopted", key,
                        workerId, epoch);
                case ELSEWHERE -> undeployStaleCopy(workerId, key, epoch);
                case UNKNOWN_GROUP -> undeployUnknown(workerId, key, epoch);
                case OWNED -> {
                    // Nothing to do.
                }
            }
        }
        unknownReported.keySet().removeIf(k -> k.endsWith("@" + workerId)
                && !reported.contains(k.substring(0, k.length() - workerId.length() - 1)));
        if (isLeader()) {
            for (String key : state.pipelinesOf(workerId)) {
                state.placement(key).filter(p -> p.isRunning() && !reported.contains(key))
                        .ifPresent(p -> deploy(key, p));
            }
        }
        return true;
    }

    /** Stops a superseded copy at once (again after command-timeout), with its epoch: a newer copy there stays. */
    private void undeployStaleCopy(String workerId, String key, long epoch) {
        if (isLeader() && firstCommandIn(key + "@" + workerId + "@undeploy", cluster.getCommandTimeout())) {
            log.info("worker {} still runs {} (placement epoch {}), which now runs elsewhere; undeploying it there",
                    workerId, key, epoch);
            command(workerId, Commands.UNDEPLOY, Commands.Undeploy.of(PipelineUnit.parse(key), epoch));
        }
    }

    private void onLeadership(boolean leads) {
        if (!leads) {
            log.info("coordinator {} no longer leads cluster {}", coordinatorId, cluster.getName());
            return;
        }
        rounds.leadAt(election.epoch());
        // A warm follower knows what runs; one heartbeat-interval more lets a deploy the old leader sent last show.
        Instant settled = clock.instant().plus(cluster.getHeartbeatInterval());
        Instant adoptedFrom = startedAt.plus(cluster.getHeartbeatTimeout());
        placementFrom = settled.isAfter(adoptedFrom) ? settled : adoptedFrom;
        log.info("coordinator {} leads cluster {} at epoch {}; adopting from heartbeats until {}", coordinatorId,
                cluster.getName(), rounds.leaderEpoch(), placementFrom);
        if (running) {
            long wait = Math.max(0, Duration.between(clock.instant(), placementFrom).toMillis());
            scheduler.schedule(this::placeSoon, wait + 10, TimeUnit.MILLISECONDS);
        }
    }

    private void tick() {
        try {
            checkReachable();
            if (reachable) {
                for (String workerId : state.expire(livenessFrom, lateWorkers)) {
                    // Its pipelines are placed elsewhere in this very tick, not at the next round.
                    rounds.requestRound();
                    log.warn("worker {} missed its heartbeats for {} ms: unhealthy{}", workerId,
                            cluster.getHeartbeatTimeout().toMillis(), isLeader() ? "; moving its pipelines "
                                    + state.pipelinesOf(workerId) : "");
                }
            }
            for (String workerId : state.forgetDead(cluster.getDeadWorkerRetention())) {
                gate.forget(workerId);
                unknownReported.keySet().removeIf(k -> k.endsWith("@" + workerId));
                log.info("worker {} was unhealthy for {} and is forgotten; it registers again if it comes back",
                        workerId, cluster.getDeadWorkerRetention());
            }
            rounds.runIfDue(placementFrom);
            Instant forgotten = clock.instant().minus(cluster.getHeartbeatTimeout().multipliedBy(10));
            commandsInFlight.values().removeIf(sent -> sent.isBefore(forgotten));
        } catch (RuntimeException e) {
            log.warn("coordinator tick failed: {}", e.toString());
        }
    }

    /** Runs a placement round now (a worker registered, a group was stored, this coordinator was elected). */
    private void placeSoon() {
        rounds.requestRound();
        ScheduledExecutorService s = scheduler;
        if (running && s != null && !s.isShutdown()) {
            s.execute(this::tick);
        }
    }

    /**
     * The heartbeat path is reachable when the connection is connected and, on JetStream, the heartbeat consumer
     * answers. When it comes back, the workers' timeouts start again from now (issue 11: an outage of NATS is not a
     * worker death).
     */
    private void checkReachable() {
        boolean ok = connection.getStatus() == Connection.Status.CONNECTED && heartbeatConsumerAnswers();
        if (!ok && reachable) {
            reachable = false;
            log.warn("coordinator {} cannot reach NATS or its heartbeat consumer {}: heartbeats missed meanwhile are "
                    + "not counted against the workers", coordinatorId, DurableNames.heartbeatConsumer(coordinatorId));
        } else if (ok && !reachable) {
            reachable = true;
            livenessFrom = state.nanoTime();
            log.info("coordinator {} reaches NATS and its heartbeat consumer again: every worker gets a full "
                    + "heartbeat-timeout ({} ms) from now", coordinatorId, cluster.getHeartbeatTimeout().toMillis());
        }
    }

    private boolean heartbeatConsumerAnswers() {
        if (probe == null) {
            return true;
        }
        try {
            // The stream must have a leader too: while it elects one, the workers' heartbeats are not stored.
            StreamInfo info = probe.getStreamInfo(VarpulisJetStream.HEARTBEAT_STREAM);
            serverClock.observe(info);
            ClusterInfo stream = info.getClusterInfo();
            boolean led = stream == null || stream.getLeader() != null;
            probe.getConsumerInfo(VarpulisJetStream.HEARTBEAT_STREAM, DurableNames.heartbeatConsumer(coordinatorId));
            return led;
        } catch (Exception e) {
            log.debug("heartbeat consumer info not answered: {}", e.toString());
            return false;
        }
    }

    /**
     * @return whether this coordinator reaches NATS and its heartbeat consumer (as of its last tick)
     */
    public boolean isReachable() {
        return reachable;
    }

    private CompletableFuture<Void> deploy(String key, Placement placed) {
        return rounds.deploy(key, placed);
    }

    /** Whether no command with this key was sent within the period; records this one. Stops command storms. */
    private boolean firstCommandIn(String key, Duration period) {
        Instant now = clock.instant();
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

    /**
     * A follower's way to know the workers that registered before it started (warm followers, SPEC section 9): it
     * asks the worker to register again, which every coordinator hears. {@code register} is not fenced, so the ask
     * carries the cluster and no leader epoch (a follower never speaks for the leader); the worker's registration
     * is answered as any other.
     */
    private void askToRegister(String workerId) {
        try {
            requests.request(connection, Subjects.command(workerId, Commands.REGISTER), mapper.writeValueAsBytes(
                            Map.of(Commands.CLUSTER, cluster.getName(), "asked_by", coordinatorId)),
                            cluster.getCommandTimeout())
                    .thenApply(this::readReply)
                    .whenComplete((reply, error) -> admission.onRegisterAnswer(workerId, reply, error));
        } catch (Exception e) {
            log.debug("worker {} not asked to register: {}", workerId, e.toString());
        }
    }

    /** Sends a command with this leader's fence (id, epoch, cluster); only the leader sends any. */
    private CompletableFuture<JsonNode> command(String workerId, String command, Object payload) {
        if (!isLeader()) {
            return CompletableFuture.failedFuture(new IllegalStateException("coordinator " + coordinatorId
                    + " does not lead cluster " + cluster.getName() + " (now: " + leaderId() + ")"));
        }
        try {
            ObjectNode body = mapper.valueToTree(payload);
            body.put(Commands.LEADER, coordinatorId);
            body.put(Commands.LEADER_EPOCH, election.epoch());
            body.put(Commands.CLUSTER, cluster.getName());
            return requests.request(connection, Subjects.command(workerId, command), mapper.writeValueAsBytes(body),
                            cluster.getCommandTimeout())
                    .thenApply(this::readReply);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private JsonNode readReply(Message reply) {
        if (reply.isStatusMessage()) {
            throw new IllegalStateException("no worker answered (" + reply.getStatus() + ")");
        }
        try {
            return mapper.readTree(reply.getData());
        } catch (Exception e) {
            throw new IllegalStateException("unreadable reply: " + new String(reply.getData(),
                    StandardCharsets.UTF_8), e);
        }
    }

    private void noteOtherCluster(String other, String what) {
        if (otherClusters.putIfAbsent(other, what) == null && !election.otherClusters().containsKey(other)) {
            log.warn("this NATS account carries another Varpulis cluster, {} (seen: {}); coordinator {} serves {} "
                    + "and leaves it alone: give each cluster its own NATS account", other, what,
                    coordinatorId, cluster.getName());
        }
    }

    /**
     * @return the other clusters found in this NATS account (leader leases, stored groups, registrations and
     * heartbeats), by name, with what showed them; {@code ""} names groups stored without a cluster (older versions)
     */
    public Map<String, String> otherClusters() {
        Map<String, String> found = new TreeMap<>(otherClusters);
        election.otherClusters().forEach((name, leader) -> found.putIfAbsent(name, "leader " + leader.leader()));
        groups.otherClusters().forEach((name, names) -> found.merge(name, "groups " + names, (a, b) -> a + ", " + b));
        return found;
    }

    /**
     * @return the leader as {@code GET /api/v1/cluster/leader} shows it
     */
    public LeaderView leader() {
        return CoordinatorViews.leader(election, cluster.getName(), coordinatorId);
    }

    /**
     * @return the {@code cluster} health details of this coordinator
     */
    @Override
    public Map<String, Object> healthDetails() {
        LeaderView leader = leader();
        return CoordinatorViews.healthDetails(leader, cluster.getName(), coordinatorId, adoptingUntil(), reachable,
                state, this::otherClusters);
    }

    private static PipelineGroupSpec withName(String key, PipelineGroupSpec group) {
        return group.name() != null ? group : new PipelineGroupSpec(key, group.pipelines(), group.routes());
    }

    /**
     * @return every group and its placement, for the topology API ({@link GroupTopology})
     */
    public List<Map<String, Object>> topology() {
        return GroupTopology.of(state, this::placementOf);
    }

    /**
     * @return which workers can take pipelines, and which are backed off after failed deploys (SPEC section 17)
     */
    public PlacementGate placementGate() {
        return gate;
    }

    /**
     * @return the workers that heartbeat without being registered with this coordinator, with the reason: never one
     * the cluster state knows (a heartbeat racing its registration must not list it twice)
     */
    public List<UnregisteredWorkers.Entry> unregisteredWorkers() {
        return unregistered.list().stream().filter(e -> state.worker(e.workerId()).isEmpty()).toList();
    }
}
