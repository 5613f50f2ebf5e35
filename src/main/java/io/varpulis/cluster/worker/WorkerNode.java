package io.varpulis.cluster.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.varpulis.cluster.node.ClusterProperties;
import io.varpulis.cluster.node.NodeHealth;
import io.varpulis.cluster.node.NodeLifecycle;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.cluster.protocol.WorkerCapabilities;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.delivery.EventInjector;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.support.Backoffs;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import io.varpulis.transport.RequestReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.backoff.BackOffExecution;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A worker: takes its worker id's lease ({@link WorkerIdLease}, JetStream), then registers with the coordinators
 * over core request/reply (backoff 1 s doubling to 30 s), publishes its heartbeat through the substrate every
 * heartbeat-interval (renewing the id lease on a thread of its own), and serves its commands on {@code varpulis.cluster.cmd.{worker}.*}
 * (deploy, undeploy, inject, drain, register) over core request/reply.
 * <p>A process whose worker id is held by another live process subscribes to nothing and runs nothing: it waits,
 * unready with the holder in its {@code cluster} health details, until the id is free; a worker whose id is taken
 * from it stops its pipelines at once and waits the same way. A coordinator's refusal that retrying cannot help
 * (another substrate, a wrong api-key) makes the worker unready with the reason and, with exit-on-refusal, exit with
 * status 78. Commands are fenced: one from a leader epoch older than the newest this worker has seen, or from
 * another cluster, is refused (SPEC section 9).
 * <p>On stop it stops pulling, waits up to drain-timeout for in-flight applies to finish and ack, leaves anything
 * unfinished unacked for redelivery, and releases its id.
 */
public class WorkerNode implements SmartLifecycle, NodeHealth {

    private static final Logger log = LoggerFactory.getLogger(WorkerNode.class);

    private final String workerId;
    private final ClusterProperties cluster;
    private final Connection connection;
    private final RequestReply requests;
    private final ClusterTransport transport;
    private final PipelineHost host;
    private final ObjectMapper mapper;
    private final EventInjector injector;
    private final String address;
    private final WorkerIdLease idLease;
    private final Consumer<String> onFinalRefusal;
    private final AtomicBoolean registered = new AtomicBoolean();
    private final AtomicBoolean registering = new AtomicBoolean();
    private final AtomicBoolean joining = new AtomicBoolean();
    private final AtomicLong newestLeaderEpoch = new AtomicLong();
    private volatile boolean running;
    private volatile boolean joined;
    private volatile String refusal;
    private volatile WorkerIdLease.Holder idHolder;
    private ScheduledExecutorService scheduler;
    private ScheduledExecutorService leases;
    private ScheduledFuture<?> heartbeats;
    private ScheduledFuture<?> renewals;
    private Dispatcher commands;

    /**
     * @param workerId       this worker's id, a NATS token
     * @param cluster        cluster settings
     * @param connection     the connection (registration and commands use core request/reply on it)
     * @param requests       sends the registration and serves the commands (with the trace context when observed)
     * @param transport      the substrate (heartbeats)
     * @param host           runs the pipelines
     * @param mapper         reads and writes the JSON of commands and heartbeats
     * @param injector       puts the events of inject commands into their pipeline
     * @param address        the address announced in the registration
     * @param idLease        the lease of this worker id, or {@code null} on core (no key-value store: duplicates are
     *                       not detected)
     * @param onFinalRefusal called with the reason when a coordinator refused this worker for good and
     *                       exit-on-refusal is on (the node exits)
     */
    public WorkerNode(String workerId, ClusterProperties cluster, Connection connection, RequestReply requests,
                      ClusterTransport transport, PipelineHost host, ObjectMapper mapper, EventInjector injector,
                      String address, WorkerIdLease idLease, Consumer<String> onFinalRefusal) {
        this.workerId = Subjects.token("worker id", workerId);
        this.cluster = cluster;
        this.connection = connection;
        this.requests = requests;
        this.transport = transport;
        this.host = host;
        this.mapper = mapper;
        this.injector = injector;
        this.address = address;
        this.idLease = idLease;
        this.onFinalRefusal = onFinalRefusal;
    }

    @Override
    public synchronized void start() {
        // Heartbeats on a thread of their own, and the id lease on another: a slow write to the lease's bucket (a slow
        // disk behind its leader) never delays a heartbeat (SPEC section 9: slow is not dead).
        scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-heartbeat-" + workerId));
        leases = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-id-lease-" + workerId));
        running = true;
        joinInBackground();
        log.info("worker {} of cluster {} started on {} (substrate {})", workerId, cluster.getName(),
                connection.getConnectedUrl(), transport.substrate());
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        closeCommands();
        // Heartbeats go on while draining: a drain longer than heartbeat-timeout must not get the pipelines moved
        // while they still finish here.
        int pipelines = host.drain(cluster.getDrainTimeout());
        running = false;
        if (heartbeats != null) {
            heartbeats.cancel(false);
        }
        if (renewals != null) {
            renewals.cancel(false);
        }
        scheduler.shutdownNow();
        leases.shutdownNow();
        if (idLease != null && joined) {
            idLease.release();
        }
        joined = false;
        log.info("worker {} stopped; drained {} pipeline(s)", workerId, pipelines);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * @return the lifecycle phase: the worker drains after HTTP requests finished, before the connection closes
     */
    @Override
    public int getPhase() {
        return NodeLifecycle.PHASE;
    }

    /**
     * @return this worker's id
     */
    public String workerId() {
        return workerId;
    }

    /**
     * @return {@code true} once a coordinator accepted the registration
     */
    public boolean isRegistered() {
        return registered.get();
    }

    /**
     * @return whether this process holds its worker id (always, on core) and serves its commands
     */
    public boolean holdsId() {
        return joined;
    }

    /**
     * @return the newest leader epoch seen in a command, 0 before the first
     */
    public long newestLeaderEpoch() {
        return newestLeaderEpoch.get();
    }

    /**
     * @return why this worker is not part of the cluster (another process holds its id, or a coordinator refused it
     * for good), empty while it is or is becoming part of it
     */
    @Override
    public Optional<String> unreadyReason() {
        WorkerIdLease.Holder holder = idHolder;
        if (holder != null) {
            return Optional.of("worker id " + workerId + " is held by " + holder.describe() + ": this process runs "
                    + "nothing until that one stops (or " + cluster.getWorkerLeaseTtl().toSeconds() + " s after its "
                    + "last renewal); give each worker its own VARPULIS_WORKER_ID");
        }
        return Optional.ofNullable(refusal);
    }

    /**
     * @return the {@code cluster} health details of this worker
     */
    @Override
    public Map<String, Object> healthDetails() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("worker_id", workerId);
        details.put("cluster", cluster.getName());
        details.put("holds_id", joined);
        details.put("registered", registered.get());
        details.put("leader_epoch_seen", newestLeaderEpoch.get());
        details.put("pipelines_running", host.status().size());
        unreadyReason().ifPresent(reason -> details.put("reason", reason));
        return details;
    }

    /**
     * @return the heartbeat this worker would publish now: after a pause of the process, without the pipelines it
     * found superseded (reading their state fences from the server, in parallel, for half a heartbeat-interval at
     * most, so that a slow server never delays the heartbeat)
     */
    public WorkerHeartbeat currentHeartbeat() {
        // After a pause, prove each pipeline is still this worker's before reporting it (SPEC section 9).
        host.proveOwnership(cluster.getHeartbeatInterval().dividedBy(2));
        var pipelines = host.status();
        return new WorkerHeartbeat(host.eventsProcessed(), pipelines.size(), pipelines.stream()
                .map(p -> new WorkerHeartbeat.PipelineMetric(p.pipeline(), p.eventsIn(), p.eventsOut(), p.group(),
                        p.epoch(), p.partition()))
                .toList(), cluster.getName(), host.stateFailures());
    }

    private void joinInBackground() {
        if (joining.compareAndSet(false, true)) {
            DaemonThreads.named("varpulis-join-" + workerId).newThread(this::joinLoop).start();
        }
    }

    /** Takes the worker id (waiting while a live process holds it), then serves commands, heartbeats, registers. */
    private void joinLoop() {
        try {
            while (running && !joined) {
                if (idLease != null && !acquireId()) {
                    Thread.sleep(cluster.getHeartbeatInterval().toMillis());
                    continue;
                }
                synchronized (this) {
                    if (!running) {
                        return;
                    }
                    joined = true;
                    idHolder = null;
                    commands = connection.createDispatcher(requests.serving(this::onCommand));
                    commands.subscribe(Subjects.COMMAND_ROOT + "." + workerId + ".*");
                    long interval = cluster.getHeartbeatInterval().toMillis();
                    heartbeats = scheduler.scheduleAtFixedRate(this::heartbeat, interval, interval,
                            TimeUnit.MILLISECONDS);
                    if (idLease != null) {
                        renewals = leases.scheduleAtFixedRate(this::renewId, interval, interval,
                                TimeUnit.MILLISECONDS);
                    }
                }
                registerInBackground();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            joining.set(false);
        }
    }

    private boolean acquireId() {
        try {
            Optional<WorkerIdLease.Holder> holder = idLease.acquire();
            if (holder.isEmpty()) {
                if (idHolder != null) {
                    log.info("worker id {} is free again; this process takes it", workerId);
                }
                return true;
            }
            if (idHolder == null) {
                log.error("worker id {} is held by {}: this process runs nothing and stays unready until that one "
                        + "stops; give each worker its own VARPULIS_WORKER_ID", workerId, holder.get().describe());
            }
            idHolder = holder.get();
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            log.warn("cannot take worker id {} yet ({}); retrying in {} ms", workerId, e.toString(),
                    cluster.getHeartbeatInterval().toMillis());
        }
        return false;
    }

    private void renewId() {
        try {
            idLease.renew().ifPresent(this::lostId);
        } catch (RuntimeException e) {
            log.warn("worker id {}: its lease was not renewed ({}); trying again in {} ms", workerId, e.toString(),
                    cluster.getHeartbeatInterval().toMillis());
        }
    }

    /** Another process took this worker's id (its lease lapsed meanwhile): stop everything, wait for it again. */
    private synchronized void lostId(WorkerIdLease.Holder holder) {
        log.error("worker id {} was taken by {} while this process could not renew it; stopping every pipeline here "
                + "and waiting until the id is free", workerId, holder.describe());
        idHolder = holder;
        joined = false;
        registered.set(false);
        closeCommands();
        if (heartbeats != null) {
            heartbeats.cancel(false);
        }
        if (renewals != null) {
            renewals.cancel(false);
        }
        host.drain(Duration.ZERO);
        joinInBackground();
    }

    private void closeCommands() {
        if (commands != null && connection.getStatus() != Connection.Status.CLOSED) {
            connection.closeDispatcher(commands);
        }
        commands = null;
    }

    private void registerInBackground() {
        registered.set(false);
        if (registering.compareAndSet(false, true)) {
            DaemonThreads.named("varpulis-register-" + workerId).newThread(this::registrationLoop).start();
        }
    }

    private void registrationLoop() {
        BackOffExecution waits = Backoffs.start(cluster.getRegistrationBackoff(), cluster.getRegistrationMaxBackoff());
        Duration backoff = Duration.ofMillis(waits.nextBackOff());
        try {
            while (running && joined && !registered.get()) {
                try {
                    Registration.Reply reply = register();
                    if (reply.error() == null) {
                        registered.set(true);
                        refusal = null;
                        log.info("worker {} registered with the coordinator (heartbeat every {} s)", workerId,
                                reply.heartbeatIntervalSecs());
                        heartbeat();
                        return;
                    }
                    refused(reply);
                    if (reply.isFinal() && cluster.isExitOnRefusal()) {
                        return;
                    }
                } catch (CancellationException e) {
                    // jnats cancels a request nobody is subscribed to (no responders).
                    log.warn("registration of worker {}: no coordinator listens on {} yet; retrying in {} ms",
                            workerId, Subjects.REGISTER, backoff.toMillis());
                } catch (Exception e) {
                    log.warn("registration of worker {} failed ({}); retrying in {} ms", workerId, e.toString(),
                            backoff.toMillis());
                }
                Thread.sleep(backoff.toMillis());
                backoff = Duration.ofMillis(waits.nextBackOff());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            registering.set(false);
            // A register command that arrived while this loop was finishing found it busy: honour it now.
            if (running && joined && !registered.get() && refusal == null) {
                registerInBackground();
            }
        }
    }

    private void refused(Registration.Reply reply) {
        String reason = "the coordinator refused worker " + workerId + ": " + reply.error();
        if (!reply.isFinal()) {
            log.error("{}; retrying", reason);
            return;
        }
        refusal = reason;
        if (cluster.isExitOnRefusal()) {
            log.error("{}; retrying cannot help, so the node exits with status 78 (set "
                    + "varpulis.cluster.exit-on-refusal=false to keep it running, unready)", reason);
            onFinalRefusal.accept(reason);
        } else {
            log.error("{}; this worker stays unready and retries until its settings or the coordinator's change",
                    reason);
        }
    }

    private Registration.Reply register() throws Exception {
        // api_key is always there, empty without one: a Rust coordinator refuses a registration without the field.
        Registration.Request request = new Registration.Request(workerId, address,
                cluster.getApiKey() == null ? "" : cluster.getApiKey(),
                new Registration.Capacity(Runtime.getRuntime().availableProcessors(), host.status().size(),
                        cluster.getMaxPipelines()), transport.substrate().id(), cluster.getName(),
                WorkerCapabilities.of(host.processorTypes()));
        Message reply = requests.request(connection, Subjects.REGISTER, mapper.writeValueAsBytes(request),
                cluster.getCommandTimeout()).get(cluster.getCommandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        if (reply.isStatusMessage()) {
            throw new IllegalStateException("no coordinator of cluster " + cluster.getName() + " answered on "
                    + Subjects.REGISTER + " (" + reply.getStatus() + ")");
        }
        return mapper.readValue(reply.getData(), Registration.Reply.class);
    }

    private void heartbeat() {
        if (!running || !joined) {
            return;
        }
        try {
            transport.publish(new OutboundMessage(Subjects.heartbeat(workerId),
                    mapper.writeValueAsBytes(currentHeartbeat()), null))
                    .exceptionally(e -> {
                        log.warn("heartbeat of worker {} was not stored: {}", workerId, e.getMessage());
                        return null;
                    });
        } catch (Exception e) {
            log.warn("heartbeat of worker {} failed: {}", workerId, e.toString());
        }
    }

    private void onCommand(Message message) {
        String subject = message.getSubject();
        String command = subject.substring(subject.lastIndexOf('.') + 1);
        Object reply;
        try {
            JsonNode body = mapper.readTree(message.getData());
            Optional<String> foreign = ForeignCommands.refusal(command, body, host.processorTypes());
            String fenced = foreign.isPresent() ? null
                    : fence(command, body == null ? mapper.createObjectNode() : body);
            reply = foreign.isPresent() ? ForeignCommands.reply(command, foreign.get())
                    : fenced != null ? Map.of("error", fenced) : switch (command) {
                case Commands.DEPLOY -> deploy(mapper.treeToValue(body, Commands.Deploy.class));
                case Commands.UNDEPLOY -> undeploy(mapper.treeToValue(body, Commands.Undeploy.class));
                case Commands.INJECT -> inject(mapper.treeToValue(body, Commands.Inject.class));
                case Commands.DRAIN -> Map.of("status", "drained", "pipelines", host.drain(Duration.ZERO));
                case Commands.REGISTER -> {
                    registerInBackground();
                    yield Map.of("status", "registering");
                }
                default -> {
                    log.warn("worker {} refused command {}: {}", workerId, command, ForeignCommands.unknown(command));
                    yield ForeignCommands.reply(command, ForeignCommands.unknown(command));
                }
            };
        } catch (Exception e) {
            log.warn("command {} on worker {} failed: {}", command, workerId, e.toString());
            reply = Map.of("error", e.getMessage() == null ? e.toString() : e.getMessage());
        }
        respond(message, reply);
    }

    /**
     * @return why the command is refused (another cluster, no or an older leader epoch), or {@code null}
     */
    private String fence(String command, JsonNode body) {
        String from = body.path(Commands.CLUSTER).asText(null);
        if (from != null && !from.equals(cluster.getName())) {
            return "command " + command + " from cluster " + from + " refused: worker " + workerId + " belongs to "
                    + "cluster " + cluster.getName();
        }
        long epoch = body.path(Commands.LEADER_EPOCH).asLong(0);
        if (epoch <= 0) {
            return Commands.isFenced(command) ? "command " + command + " refused: it carries no "
                    + Commands.LEADER_EPOCH + "; only the cluster's leader may send it" : null;
        }
        long seen = newestLeaderEpoch.getAndAccumulate(epoch, Math::max);
        if (epoch < seen) {
            String leader = body.path(Commands.LEADER).asText("?");
            log.warn("refused command {} from coordinator {} at leader epoch {}: this worker has seen epoch {}",
                    command, leader, epoch, seen);
            return "command " + command + " from coordinator " + leader + " at leader epoch " + epoch
                    + " refused: worker " + workerId + " has seen leader epoch " + seen + " (a newer leader)";
        }
        return null;
    }

    private Map<String, Object> deploy(Commands.Deploy deploy) {
        PipelineGroupSpec group = deploy.group().validate(cluster.getMaxPartitions());
        int partition = deploy.partition() == null ? Partitioning.NONE : deploy.partition();
        boolean started = host.deploy(group, deploy.pipeline(), partition, deploy.placementEpoch());
        Map<String, Object> reply = new LinkedHashMap<>(Map.of("status", started ? "deployed" : "already_running",
                "group", group.name(), "pipeline", deploy.pipeline(), "worker_id", workerId, "placement_epoch",
                deploy.placementEpoch()));
        if (deploy.partition() != null) {
            reply.put("partition", deploy.partition());
        }
        return reply;
    }

    private Map<String, Object> undeploy(Commands.Undeploy undeploy) {
        int partition = undeploy.partition() == null ? Partitioning.NONE : undeploy.partition();
        boolean stopped = host.undeploy(undeploy.group(), undeploy.pipeline(), partition,
                undeploy.placementEpoch() == null ? Long.MAX_VALUE : undeploy.placementEpoch());
        return Map.of("status", stopped ? "undeployed" : "not_running", "group", undeploy.group(),
                "pipeline", undeploy.pipeline(), "worker_id", workerId);
    }

    private Map<String, Object> inject(Commands.Inject inject) throws Exception {
        String[] id = inject.pipelineId() == null ? new String[0] : inject.pipelineId().split("/");
        if (id.length != 2) {
            throw new IllegalArgumentException("pipeline_id must be {group}/{pipeline}, got " + inject.pipelineId());
        }
        Event event = Event.of(inject.eventType(), inject.fields());
        String injection = inject.id() == null ? EventInjector.newId() : EventInjector.checkedId(inject.id());
        PublishReceipt receipt = injector.injectInto(id[0], id[1], host.group(id[0]), event, injection)
                .get(cluster.getCommandTimeout().toMillis(), TimeUnit.MILLISECONDS);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("status", "injected");
        reply.put("subject", receipt.subject());
        reply.put("stream", receipt.stream());
        reply.put("sequence", receipt.sequence());
        reply.put("id", injection);
        return reply;
    }

    private void respond(Message request, Object reply) {
        if (request.getReplyTo() == null) {
            return;
        }
        try {
            connection.publish(request.getReplyTo(), mapper.writeValueAsString(reply)
                    .getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            log.warn("could not reply to {}: {}", request.getSubject(), e.toString());
        }
    }
}
