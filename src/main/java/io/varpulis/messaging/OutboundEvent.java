package io.varpulis.messaging;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An event to publish with {@link NatsTemplate}, or to return from a {@link NatsListener}
 * method.
 *
 * @param subject the subject (a stream must capture it on jetstream)
 * @param payload written with Jackson 2; a {@code byte[]} as is, a {@code String} as
 * UTF-8
 * @param messageId the {@code Nats-Msg-Id}: the business id, so that a retried publish is
 * stored once within the stream's duplicate window; {@code null} for none
 * @param headers more headers (may be empty)
 */
public record OutboundEvent(String subject, Object payload, String messageId, Map<String, String> headers) {

    /**
     * @throws IllegalArgumentException when the subject is blank or the payload null
     */
    public OutboundEvent {
        if (subject == null || subject.isBlank()) {
            throw new IllegalArgumentException("an outbound event needs a subject");
        }
        Objects.requireNonNull(payload, "payload");
        headers = headers == null || headers.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /**
     * @param subject the subject
     * @param payload the payload
     * @return an event without message id or headers
     */
    public static OutboundEvent to(String subject, Object payload) {
        return new OutboundEvent(subject, payload, null, Map.of());
    }

    /**
     * @param id the {@code Nats-Msg-Id}
     * @return this event with that message id
     */
    public OutboundEvent withMessageId(String id) {
        return new OutboundEvent(subject, payload, id, headers);
    }

    /**
     * @param name a header name
     * @param value its value
     * @return this event with that header added
     */
    public OutboundEvent withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new OutboundEvent(subject, payload, messageId, more);
    }
}
