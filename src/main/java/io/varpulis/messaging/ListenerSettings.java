package io.varpulis.messaging;

/**
 * What an operator set for one {@link NatsListener} id
 * ({@code varpulis.nats.listeners.<id>.*}); each value, when not {@code null}, wins over
 * the annotation's.
 *
 * @param subject the filter subject
 * @param stream the stream the consumer is created on
 * @param concurrency threads pulling and handling deliveries (1 or more)
 * @param maxDeliver the consumer's max_deliver
 * @param maxAckPending the consumer's max_ack_pending
 * @param sendTo the subject a return value is published to
 */
public record ListenerSettings(String subject, String stream, Integer concurrency, Integer maxDeliver,
        Integer maxAckPending, String sendTo) {

    /** No override: the annotation says everything. */
    public static final ListenerSettings NONE = new ListenerSettings(null, null, null, null, null, null);

}
