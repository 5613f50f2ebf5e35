package io.varpulis.messaging;

import io.nats.client.impl.Headers;
import io.varpulis.transport.Delivery;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.support.GenericMessage;

import java.util.HashMap;
import java.util.Map;

/**
 * A delivery as the Spring {@link Message} a listener's arguments are resolved from: its
 * payload bytes, and, when the method reads headers, the NATS headers (the last value of
 * each) and {@link NatsHeaders}'. No id and no timestamp are generated (a random UUID per
 * message would cost more than the hop), as Spring Kafka's own headers do.
 */
final class NatsMessages {

    private static final MessageHeaders NONE = new DeliveryHeaders(Map.of());

    /**
     * A message without payload bytes nor headers: a batch method's (its list is
     * provided).
     */
    static final Message<byte[]> EMPTY = new GenericMessage<>(new byte[0], NONE);

    private NatsMessages() {
    }

    /**
     * @param delivery the delivery
     * @param withHeaders whether the method reads headers
     * @return the message
     */
    static Message<byte[]> of(Delivery delivery, boolean withHeaders) {
        return new GenericMessage<>(delivery.data(), withHeaders ? headers(delivery) : NONE);
    }

    private static MessageHeaders headers(Delivery delivery) {
        Map<String, Object> headers = new HashMap<>();
        Headers nats = delivery.headers();
        if (nats != null) {
            for (String key : nats.keySet()) {
                headers.put(key, nats.getLast(key));
            }
        }
        headers.put(NatsHeaders.SUBJECT, delivery.subject());
        if (delivery.stream() != null) {
            headers.put(NatsHeaders.STREAM, delivery.stream());
            headers.put(NatsHeaders.STREAM_SEQUENCE, delivery.streamSequence());
        }
        headers.put(NatsHeaders.ATTEMPT, delivery.attempt());
        headers.put(NatsHeaders.MAX_DELIVER, delivery.maxDeliver());
        String messageId = delivery.publisherMessageId();
        if (messageId != null) {
            headers.put(NatsHeaders.MESSAGE_ID, messageId);
        }
        return new DeliveryHeaders(headers);
    }

    /** Headers without a generated id or timestamp. */
    private static final class DeliveryHeaders extends MessageHeaders {

        DeliveryHeaders(Map<String, Object> headers) {
            super(headers, ID_VALUE_NONE, -1L);
        }

    }

}
