package io.varpulis.cluster.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.varpulis.cluster.node.CoreRequests;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.delivery.EventInjector;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.transport.PublishReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves a worker's commands on {@code varpulis.cluster.cmd.{worker}.*} (core
 * request/reply, SPEC section 6): deploy, undeploy, inject, drain and register, each
 * answered with JSON ({@code {"error": "..."}} for a refusal). Commands are fenced (SPEC
 * section 9): one from another cluster, or from a leader epoch older than the newest this
 * worker has seen, is refused, and deploy, undeploy and drain must carry an epoch. A Rust
 * Varpulis coordinator's commands are answered in its shape, naming the difference
 * ({@link ForeignCommands}).
 */
public class CommandResponder {

    private static final Logger log = LoggerFactory.getLogger(CommandResponder.class);

    private final String workerId;

    private final WorkerSettings settings;

    private final CoreRequests requests;

    private final PipelineHost host;

    private final EventInjector injector;

    private final WorkerRegistration registration;

    private final AtomicLong newestLeaderEpoch = new AtomicLong();

    private Dispatcher commands;

    /**
     * @param workerId this worker's id (its command subjects)
     * @param settings the cluster's name, max-partitions and command-timeout
     * @param requests serves the commands (in the sender's trace when observed) and
     * publishes the replies
     * @param host runs the pipelines deployed
     * @param injector puts the events of inject commands into their pipeline
     * @param registration registers again when a coordinator asks
     */
    public CommandResponder(String workerId, WorkerSettings settings, CoreRequests requests, PipelineHost host,
            EventInjector injector, WorkerRegistration registration) {
        this.workerId = workerId;
        this.settings = settings;
        this.requests = requests;
        this.host = host;
        this.injector = injector;
        this.registration = registration;
    }

    /** Subscribes to this worker's command subjects (it holds its id now). */
    public synchronized void start() {
        commands = requests.serve(Subjects.COMMAND_ROOT + "." + workerId + ".*", this::onCommand);
    }

    /** Unsubscribes (nothing when the connection is closed already). */
    public synchronized void stop() {
        requests.close(commands);
        commands = null;
    }

    /**
     * @return the newest leader epoch seen in a command, 0 before the first
     */
    public long newestLeaderEpoch() {
        return newestLeaderEpoch.get();
    }

    private void onCommand(Message message) {
        String subject = message.getSubject();
        String command = subject.substring(subject.lastIndexOf('.') + 1);
        ObjectMapper mapper = requests.mapper();
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
                            registration.registerInBackground();
                            yield Map.of("status", "registering");
                        }
                        default -> {
                            log.warn("worker {} refused command {}: {}", workerId, command,
                                    ForeignCommands.unknown(command));
                            yield ForeignCommands.reply(command, ForeignCommands.unknown(command));
                        }
                    };
        }
        catch (Exception e) {
            log.warn("command {} on worker {} failed: {}", command, workerId, e.toString());
            reply = Map.of("error", e.getMessage() == null ? e.toString() : e.getMessage());
        }
        requests.reply(message, reply);
    }

    /**
     * @return why the command is refused (another cluster, no or an older leader epoch),
     * or {@code null}
     */
    private String fence(String command, JsonNode body) {
        String from = body.path(Commands.CLUSTER).asText(null);
        if (from != null && !from.equals(settings.clusterName())) {
            return "command " + command + " from cluster " + from + " refused: worker " + workerId + " belongs to "
                    + "cluster " + settings.clusterName();
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
        PipelineGroupSpec group = deploy.group().validate(settings.maxPartitions());
        int partition = deploy.partition() == null ? Partitioning.NONE : deploy.partition();
        boolean started = host.deploy(group, deploy.pipeline(), partition, deploy.placementEpoch());
        Map<String, Object> reply = new LinkedHashMap<>(
                Map.of("status", started ? "deployed" : "already_running", "group", group.name(), "pipeline",
                        deploy.pipeline(), "worker_id", workerId, "placement_epoch", deploy.placementEpoch()));
        if (deploy.partition() != null) {
            reply.put("partition", deploy.partition());
        }
        return reply;
    }

    private Map<String, Object> undeploy(Commands.Undeploy undeploy) {
        int partition = undeploy.partition() == null ? Partitioning.NONE : undeploy.partition();
        boolean stopped = host.undeploy(undeploy.group(), undeploy.pipeline(), partition,
                undeploy.placementEpoch() == null ? Long.MAX_VALUE : undeploy.placementEpoch());
        return Map.of("status", stopped ? "undeployed" : "not_running", "group", undeploy.group(), "pipeline",
                undeploy.pipeline(), "worker_id", workerId);
    }

    private Map<String, Object> inject(Commands.Inject inject) throws Exception {
        String[] id = inject.pipelineId() == null ? new String[0] : inject.pipelineId().split("/");
        if (id.length != 2) {
            throw new IllegalArgumentException("pipeline_id must be {group}/{pipeline}, got " + inject.pipelineId());
        }
        Event event = Event.of(inject.eventType(), inject.fields());
        String injection = inject.id() == null ? EventInjector.newId() : EventInjector.checkedId(inject.id());
        PublishReceipt receipt = injector.injectInto(id[0], id[1], host.group(id[0]), event, injection)
            .get(settings.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("status", "injected");
        reply.put("subject", receipt.subject());
        reply.put("stream", receipt.stream());
        reply.put("sequence", receipt.sequence());
        reply.put("id", injection);
        return reply;
    }

}
