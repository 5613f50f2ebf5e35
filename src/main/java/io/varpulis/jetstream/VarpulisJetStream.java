package io.varpulis.jetstream;

import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.nats.Subjects;

import java.time.Duration;
import java.util.List;

/**
 * ADR-007's streams and durable consumers (SPEC sections 3 and 4), with the reasons of
 * their limits; a node declares the streams with the limits its configuration may tune
 * ({@code varpulis.nats.jetstream.routing.*}, {@code heartbeat.*}, {@code dlq.*}), which
 * start from these.
 * <p>
 * One stream per concern bound to a wildcard, not one per route edge: a consumer's
 * filter_subject isolates each edge, and one set of limits is something an operator can
 * size. Limits retention, not WorkQueue: a work queue allows one consumer per subject,
 * while two pipelines may read the same edge and a coordinator replay needs the messages
 * to stay after an ack.
 */
public final class VarpulisJetStream {

    /** Routed events between pipelines. */
    public static final String ROUTING_STREAM = "VARPULIS_ROUTING";

    /** Worker heartbeats. */
    public static final String HEARTBEAT_STREAM = "VARPULIS_HEARTBEAT";

    /** Parked poison events. */
    public static final String DLQ_STREAM = "VARPULIS_DLQ";

    private VarpulisJetStream() {
    }

    /**
     * {@value #ROUTING_STREAM}: {@code varpulis.cluster.pipeline.>}, max_age 1 h,
     * max_bytes 1 GiB, duplicate_window 2 min. One hour covers the pipeline that was down
     * for an hour (replaying a days-old backlog into time windows would manufacture
     * alerts, not recover them); 1 GiB so a wedged consumer cannot fill the disk (discard
     * Old drops the oldest first); the duplicate window covers a publisher's retry after
     * a crash.
     * @param replicas the stream's replicas
     * @return the declaration
     */
    public static StreamDeclaration routingStream(int replicas) {
        return new StreamDeclaration(builtIn(ROUTING_STREAM, Subjects.PIPELINE_ROOT + ".>",
                "Varpulis routed events between pipelines (ADR-007)", replicas)
            .maxAge(Duration.ofHours(1))
            .maxBytes(1L << 30)
            .duplicateWindow(Duration.ofMinutes(2))
            .build());
    }

    /**
     * {@value #HEARTBEAT_STREAM}: {@code varpulis.cluster.heartbeat.>}, max_age 5 min,
     * max_msgs_per_subject 16. Five minutes is well above any heartbeat-timeout, so a
     * restarted coordinator still finds the evidence it needs; 16 per worker subject is
     * the most a restarted coordinator replays per worker.
     * @param replicas the stream's replicas
     * @return the declaration
     */
    public static StreamDeclaration heartbeatStream(int replicas) {
        return new StreamDeclaration(
                builtIn(HEARTBEAT_STREAM, Subjects.HEARTBEAT_ROOT + ".>", "Varpulis worker heartbeats (ADR-007)",
                        replicas)
                    .maxAge(Duration.ofMinutes(5))
                    .maxMessagesPerSubject(16)
                    .build());
    }

    /**
     * {@value #DLQ_STREAM}: {@code varpulis.dlq.>}, max_msgs 100 000 and no max_age,
     * because last week's poison event is exactly what an operator looks for; a full DLQ
     * is itself a signal (discard Old).
     * @param replicas the stream's replicas
     * @return the declaration
     */
    public static StreamDeclaration deadLetterStream(int replicas) {
        return new StreamDeclaration(builtIn(DLQ_STREAM, "varpulis.dlq.>",
                "Varpulis parked events with their death envelopes (ADR-007)", replicas)
            .maxMessages(100_000)
            .build());
    }

    /**
     * @param replicas the streams' replicas
     * @return the three streams with ADR-007's limits, as a tool outside a Spring context
     * provisions them
     */
    public static List<StreamDeclaration> builtInStreams(int replicas) {
        return List.of(routingStream(replicas), heartbeatStream(replicas), deadLetterStream(replicas));
    }

    /** Limits retention, discard Old, file storage: what every built-in stream keeps. */
    private static StreamConfiguration.Builder builtIn(String name, String subject, String description, int replicas) {
        return StreamConfiguration.builder()
            .name(name)
            .subjects(subject)
            .retentionPolicy(RetentionPolicy.Limits)
            .discardPolicy(DiscardPolicy.Old)
            .storageType(StorageType.File)
            .replicas(replicas)
            .description(description);
    }

    /**
     * The durable pull consumer of one pipeline on one route edge (SPEC section 4): name
     * {@link DurableNames#routeConsumer}, filter_subject the edge's subject, AckPolicy
     * Explicit, ack_wait 30 s, max_deliver 5, max_ack_pending 1024, inactive_threshold 7
     * days, delivering everything the stream still holds (an event routed while the
     * pipeline was down is applied when it comes back).
     * @param pipeline the consuming pipeline
     * @param subject the route edge's subject
     * @param settings the consumer settings
     * @return the declaration, on {@value #ROUTING_STREAM}
     */
    public static ConsumerDeclaration routeEdgeConsumer(String pipeline, String subject, ConsumerSettings settings) {
        return new ConsumerDeclaration(ROUTING_STREAM,
                consumer(DurableNames.routeConsumer(pipeline, subject), subject, settings));
    }

    /**
     * The coordinator's durable heartbeat consumer {@code hb_{coordinator id}} on every
     * worker's heartbeat subject.
     * @param coordinatorId the coordinator's stable id
     * @param settings the consumer settings
     * @return the declaration, on {@value #HEARTBEAT_STREAM}
     */
    public static ConsumerDeclaration heartbeatConsumer(String coordinatorId, ConsumerSettings settings) {
        return new ConsumerDeclaration(HEARTBEAT_STREAM,
                consumer(DurableNames.heartbeatConsumer(coordinatorId), Subjects.HEARTBEAT_ROOT + ".>", settings));
    }

    private static ConsumerConfiguration consumer(String durable, String filterSubject, ConsumerSettings settings) {
        return ConsumerConfiguration.builder()
            .durable(durable)
            .filterSubject(filterSubject)
            .deliverPolicy(DeliverPolicy.All)
            .ackPolicy(AckPolicy.Explicit)
            .ackWait(settings.ackWait())
            .maxDeliver(settings.maxDeliver())
            .maxAckPending(settings.maxAckPending())
            .inactiveThreshold(settings.inactiveThreshold())
            .build();
    }

}
