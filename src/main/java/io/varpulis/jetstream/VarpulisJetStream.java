package io.varpulis.jetstream;

import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.varpulis.nats.Subjects;

/**
 * ADR-007's stream names and durable consumers (SPEC sections 3 and 4); the streams
 * themselves are declared from {@link JetStreamSettings}.
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
