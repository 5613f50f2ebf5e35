package io.varpulis.jetstream;

import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Subjects;

/**
 * ADR-007's streams and consumers, built from the {@code varpulis.nats.jetstream.*} settings (SPEC sections 3 and 4).
 * <p>One stream per concern bound to a wildcard, not one per route edge: a consumer's filter_subject isolates each
 * edge, and one set of limits is something an operator can size. Limits retention, not WorkQueue: a work queue
 * allows one consumer per subject, while two pipelines may read the same edge and a coordinator replay needs the
 * messages to stay after an ack.
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
     * @param js the JetStream settings
     * @return {@code VARPULIS_ROUTING}: {@code varpulis.cluster.pipeline.>}, Limits, max_age 1 h, max_bytes 1 GiB,
     * discard Old, File, duplicate_window 2 min
     */
    public static StreamDeclaration routing(NatsProperties.JetStream js) {
        NatsProperties.Routing r = js.getRouting();
        return new StreamDeclaration(base(ROUTING_STREAM, Subjects.PIPELINE_ROOT + ".>", js.getReplicas())
                .description("Varpulis routed events between pipelines (ADR-007)")
                .maxAge(r.getMaxAge())
                .maxBytes(r.getMaxBytes().toBytes())
                .duplicateWindow(r.getDuplicateWindow())
                .build());
    }

    /**
     * @param js the JetStream settings
     * @return {@code VARPULIS_HEARTBEAT}: {@code varpulis.cluster.heartbeat.>}, Limits, max_age 5 min,
     * max_msgs_per_subject 16, discard Old, File
     */
    public static StreamDeclaration heartbeat(NatsProperties.JetStream js) {
        NatsProperties.Heartbeat h = js.getHeartbeat();
        return new StreamDeclaration(base(HEARTBEAT_STREAM, Subjects.HEARTBEAT_ROOT + ".>", js.getReplicas())
                .description("Varpulis worker heartbeats (ADR-007)")
                .maxAge(h.getMaxAge())
                .maxMessagesPerSubject(h.getMaxMsgsPerSubject())
                .build());
    }

    /**
     * @param js the JetStream settings
     * @return {@code VARPULIS_DLQ}: {@code varpulis.dlq.>}, Limits, max_msgs 100 000, no max_age, discard Old, File
     */
    public static StreamDeclaration deadLetters(NatsProperties.JetStream js) {
        return new StreamDeclaration(base(DLQ_STREAM, DurableNames.DLQ_ROOT + ".>", js.getReplicas())
                .description("Varpulis parked events with their death envelopes (ADR-007)")
                .maxMessages(js.getDlq().getMaxMsgs())
                .build());
    }

    /**
     * A stream declared under {@code varpulis.nats.jetstream.streams.<name>}.
     *
     * @param name            the stream name
     * @param spec            its settings
     * @param defaultReplicas replicas when the spec does not say
     * @return the declaration
     * @throws IllegalArgumentException when the spec has no subjects
     */
    public static StreamDeclaration fromSpec(String name, NatsProperties.StreamSpec spec, int defaultReplicas) {
        if (spec.getSubjects() == null || spec.getSubjects().isEmpty()) {
            throw new IllegalArgumentException("stream " + name + " declares no subjects");
        }
        StreamConfiguration.Builder b = StreamConfiguration.builder()
                .name(name)
                .subjects(spec.getSubjects())
                .retentionPolicy(spec.getRetention())
                .discardPolicy(spec.getDiscard())
                .storageType(spec.getStorage())
                .replicas(spec.getReplicas() == null ? defaultReplicas : spec.getReplicas())
                .description(spec.getDescription());
        if (spec.getMaxAge() != null) {
            b.maxAge(spec.getMaxAge());
        }
        if (spec.getMaxBytes() != null) {
            b.maxBytes(spec.getMaxBytes().toBytes());
        }
        if (spec.getMaxMsgs() != null) {
            b.maxMessages(spec.getMaxMsgs());
        }
        if (spec.getMaxMsgsPerSubject() != null) {
            b.maxMessagesPerSubject(spec.getMaxMsgsPerSubject());
        }
        if (spec.getDuplicateWindow() != null) {
            b.duplicateWindow(spec.getDuplicateWindow());
        }
        return new StreamDeclaration(b.build());
    }

    /**
     * The durable pull consumer of one pipeline on one route edge (SPEC section 4): name
     * {@link DurableNames#routeConsumer}, filter_subject the edge's subject, AckPolicy Explicit, ack_wait 30 s,
     * max_deliver 5, max_ack_pending 1024, inactive_threshold 7 days, delivering everything the stream still holds
     * (an event routed while the pipeline was down is applied when it comes back).
     *
     * @param pipeline the consuming pipeline
     * @param subject  the route edge's subject
     * @param settings the consumer settings
     * @return the declaration, on {@value #ROUTING_STREAM}
     */
    public static ConsumerDeclaration routeEdgeConsumer(String pipeline, String subject,
                                                        NatsProperties.Consumer settings) {
        return new ConsumerDeclaration(ROUTING_STREAM,
                consumer(DurableNames.routeConsumer(pipeline, subject), subject, settings));
    }

    /**
     * The coordinator's durable heartbeat consumer {@code hb_{coordinator id}} on every worker's heartbeat subject.
     *
     * @param coordinatorId the coordinator's stable id
     * @param settings      the consumer settings
     * @return the declaration, on {@value #HEARTBEAT_STREAM}
     */
    public static ConsumerDeclaration heartbeatConsumer(String coordinatorId, NatsProperties.Consumer settings) {
        return new ConsumerDeclaration(HEARTBEAT_STREAM,
                consumer(DurableNames.heartbeatConsumer(coordinatorId), Subjects.HEARTBEAT_ROOT + ".>", settings));
    }

    private static ConsumerConfiguration consumer(String durable, String filterSubject,
                                                  NatsProperties.Consumer settings) {
        return ConsumerConfiguration.builder()
                .durable(durable)
                .filterSubject(filterSubject)
                .deliverPolicy(DeliverPolicy.All)
                .ackPolicy(AckPolicy.Explicit)
                .ackWait(settings.getAckWait())
                .maxDeliver(settings.getMaxDeliver())
                .maxAckPending(settings.getMaxAckPending())
                .inactiveThreshold(settings.getInactiveThreshold())
                .build();
    }

    private static StreamConfiguration.Builder base(String name, String subject, int replicas) {
        return StreamConfiguration.builder()
                .name(name)
                .subjects(subject)
                .retentionPolicy(RetentionPolicy.Limits)
                .discardPolicy(DiscardPolicy.Old)
                .storageType(StorageType.File)
                .replicas(replicas);
    }
}
