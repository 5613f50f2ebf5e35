package io.varpulis.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A worker: registers with the coordinator over core request/reply (backoff 1 s doubling to 30 s), publishes its
 * heartbeat through the substrate every heartbeat-interval, and serves its commands on
 * {@code varpulis.cluster.cmd.{worker}.*} (deploy, undeploy, inject, drain, register) over core request/reply.
 * <p>On stop it stops pulling, waits up to drain-timeout for in-flight applies to finish and ack, and leaves anything
 * unfinished unacked for redelivery.
 */
public class WorkerNode implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WorkerNode.class);

    private final String workerId;
    private final ClusterProperties cluster;
    private final Connection connection;
    private final ClusterTransport transport;
    private final PipelineHost host;
    private final ObjectMapper mapper;
    private final SubstrateMetrics metrics;
    private final String address;
    private final AtomicBoolean registered = new AtomicBoolean();
    private final AtomicBoolean registering = new AtomicBoolean();
    private volatile boolean running;
    private ScheduledExecutorService scheduler;
    private ScheduledFuture<?> heartbeats;
    private Dispatcher commands;

    /**
     * @param workerId   this worker's id, a NATS token
     * @param cluster    cluster settings
     * @param connection the connection (registration and commands use core request/reply on it)
     * @param transport  the substrate (heartbeats, injected events)
     * @param host       runs the pipelines
     * @param mapper     reads and writes the JSON of commands and heartbeats
     * @param metrics    substrate meters
     * @param address    the address announced in the registration
     */
    public WorkerNode(String workerId, ClusterProperties cluster, Connection connection, ClusterTransport transport,
                      PipelineHost host, ObjectMapper mapper, SubstrateMetrics metrics, String address) {
        this.workerId = Subjects.token("worker id", workerId);
        this.cluster = cluster;
        this.connection = connection;
        this.transport = transport;
        this.host = host;
        this.mapper = mapper;
        this.metrics = metrics;
        this.address = address;
    }

    @Override
    public synchronized void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-worker-" + workerId));
        commands = connection.createDispatcher(this::onCommand);
        commands.subscribe(Subjects.COMMAND_ROOT + "." + workerId + ".*");
        running = true;
        registerInBackground();
        long interval = cluster.getHeartbeatInterval().toMillis();
        heartbeats = scheduler.scheduleAtFixedRate(this::heartbeat, interval, interval, TimeUnit.MILLISECONDS);
        log.info("worker {} started on {} (substrate {})", workerId, connection.getConnectedUrl(),
                transport.substrate());
    }

    @Override
    public synchronized void stop() {
        if (!running) {
            return;
        }
        if (connection.getStatus() != Connection.Status.CLOSED) {
            connection.closeDispatcher(commands);
        }
        // Heartbeats go on while draining: a drain longer than heartbeat-timeout must not get the pipelines moved
        // while they still finish here.
        int pipelines = host.drain(cluster.getDrainTimeout());
        running = false;
        heartbeats.cancel(false);
        scheduler.shutdownNow();
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
     * @return the heartbeat this worker would publish now
     */
    public WorkerHeartbeat currentHeartbeat() {
        var pipelines = host.status();
        return new WorkerHeartbeat(host.eventsProcessed(), pipelines.size(), pipelines.stream()
                .map(p -> new WorkerHeartbeat.PipelineMetric(p.pipeline(), p.eventsIn(), p.eventsOut(), p.group()))
                .toList());
    }

    private void registerInBackground() {
        registered.set(false);
        if (registering.compareAndSet(false, true)) {
            DaemonThreads.named("varpulis-register-" + workerId).newThread(this::registrationLoop).start();
        }
    }

    private void registrationLoop() {
        Duration backoff = cluster.getRegistrationBackoff();
        try {
            while (running && !registered.get()) {
                try {
                    Registration.Reply reply = register();
                    if (reply.error() == null) {
                        registered.set(true);
                        log.info("worker {} registered with the coordinator (heartbeat every {} s)", workerId,
                                reply.heartbeatIntervalSecs());
                        heartbeat();
                        return;
                    }
                    log.error("the coordinator refused worker {}: {}", workerId, reply.error());
                } catch (Exception e) {
                    log.warn("registration of worker {} failed ({}); retrying in {} ms", workerId, e.toString(),
                            backoff.toMillis());
                }
                Thread.sleep(backoff.toMillis());
                backoff = backoff.multipliedBy(2).compareTo(cluster.getRegistrationMaxBackoff()) > 0
                        ? cluster.getRegistrationMaxBackoff() : backoff.multipliedBy(2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            registering.set(false);
            // A register command that arrived while this loop was finishing found it busy: honour it now.
            if (running && !registered.get()) {
                registerInBackground();
            }
        }
    }

    private Registration.Reply register() throws Exception {
        Registration.Request request = new Registration.Request(workerId, address, cluster.getApiKey(),
                new Registration.Capacity(Runtime.getRuntime().availableProcessors(), host.status().size(),
                        cluster.getMaxPipelines()), transport.substrate().id());
        Message reply = connection.requestWithTimeout(Subjects.REGISTER, mapper.writeValueAsBytes(request),
                cluster.getCommandTimeout()).get(cluster.getCommandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        if (reply.isStatusMessage()) {
            throw new IllegalStateException("no coordinator answered on " + Subjects.REGISTER + " ("
                    + reply.getStatus() + ")");
        }
        return mapper.readValue(reply.getData(), Registration.Reply.class);
    }

    private void heartbeat() {
        if (!running) {
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
            reply = switch (command) {
                case Commands.DEPLOY -> deploy(mapper.readValue(message.getData(), Commands.Deploy.class));
                case Commands.UNDEPLOY -> undeploy(mapper.readValue(message.getData(), Commands.Undeploy.class));
                case Commands.INJECT -> inject(mapper.readValue(message.getData(), Commands.Inject.class));
                case Commands.DRAIN -> Map.of("status", "drained", "pipelines", host.drain(Duration.ZERO));
                case Commands.REGISTER -> {
                    registerInBackground();
                    yield Map.of("status", "registering");
                }
                default -> Map.of("error", "unknown command '" + command + "'; expected deploy, undeploy, "
                        + "inject, drain or register");
            };
        } catch (Exception e) {
            log.warn("command {} on worker {} failed: {}", command, workerId, e.toString());
            reply = Map.of("error", e.getMessage() == null ? e.toString() : e.getMessage());
        }
        respond(message, reply);
    }

    private Map<String, Object> deploy(Commands.Deploy deploy) {
        PipelineGroupSpec group = deploy.group().validate();
        boolean started = host.deploy(group, deploy.pipeline(), KeyValueStateFactory.NO_PLACEMENT_EPOCH);
        return Map.of("status", started ? "deployed" : "already_running", "group", group.name(),
                "pipeline", deploy.pipeline(), "worker_id", workerId);
    }

    private Map<String, Object> undeploy(Commands.Undeploy undeploy) {
        boolean stopped = host.undeploy(undeploy.group(), undeploy.pipeline());
        return Map.of("status", stopped ? "undeployed" : "not_running", "group", undeploy.group(),
                "pipeline", undeploy.pipeline(), "worker_id", workerId);
    }

    private Map<String, Object> inject(Commands.Inject inject) throws Exception {
        String[] id = inject.pipelineId() == null ? new String[0] : inject.pipelineId().split("/");
        if (id.length != 2) {
            throw new IllegalArgumentException("pipeline_id must be {group}/{pipeline}, got " + inject.pipelineId());
        }
        RouteEdge edge = new RouteEdge(id[0], Subjects.EXTERNAL, id[1]);
        Event event = Event.of(inject.eventType(), inject.fields());
        PublishReceipt receipt = transport.publish(new OutboundMessage(edge.subject(), mapper.writeValueAsBytes(event),
                "inject:" + UUID.randomUUID())).get(cluster.getCommandTimeout().toMillis(), TimeUnit.MILLISECONDS);
        if (!receipt.duplicate()) {
            metrics.published(edge.name());
        }
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("status", "injected");
        reply.put("subject", receipt.subject());
        reply.put("stream", receipt.stream());
        reply.put("sequence", receipt.sequence());
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
