package io.varpulis.messaging;

import io.varpulis.transport.Delivery;

/**
 * What a {@link NatsListener} method may know of the delivery it handles.
 *
 * @param subject the subject the message was published on
 * @param stream the stream that stored it ({@code null} on core)
 * @param streamSequence its sequence in that stream (0 on core)
 * @param attempt this delivery's number, from 1
 * @param maxDeliver the consumer's max_deliver (1 on core)
 * @param messageId the publisher's {@code Nats-Msg-Id}, or {@code null}
 */
public record DeliveryMetadata(String subject, String stream, long streamSequence, long attempt, long maxDeliver,
        String messageId) {

    static DeliveryMetadata of(Delivery delivery) {
        boolean stored = delivery.stream() != null;
        return new DeliveryMetadata(delivery.subject(), delivery.stream(), stored ? delivery.streamSequence() : 0,
                delivery.attempt(), delivery.maxDeliver(), delivery.publisherMessageId());
    }

    /**
     * @return {@code true} on the last delivery the consumer allows: a failure now parks
     * the event
     */
    public boolean lastAttempt() {
        return attempt >= maxDeliver;
    }
}
