package io.varpulis.transport;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One message to publish on the substrate.
 *
 * @param subject the subject
 * @param data the payload bytes (routed events: the event JSON)
 * @param messageId the {@code Nats-Msg-Id} for JetStream's duplicate window (2 min on
 * VARPULIS_ROUTING), or {@code null}; ignored on core, which publishes exactly the bytes
 * it always did
 * @param headers more headers, in order (names and values US-ASCII without CR or LF; a
 * parked event's {@code Varpulis-Dlq-*} fields), empty for none
 * @param expectedLastSequence on JetStream, the sequence the stream's last message must
 * have for this one to be stored ({@code Nats-Expected-Last-Sequence}: a compare-and-set
 * over the whole stream, refused with API error 10071 otherwise), or {@code null} for no
 * expectation
 * @param expectedLastMessageId on JetStream, the {@code Nats-Msg-Id} the stream's last
 * message must have ({@code Nats-Expected-Last-Msg-Id}, refused with API error 10070
 * otherwise): chains a writer's messages so that none lands after a message it did not
 * write, or {@code null}
 */
public record OutboundMessage(String subject, byte[] data, String messageId, Map<String, String> headers,
        Long expectedLastSequence, String expectedLastMessageId) {

    /**
     * @throws IllegalArgumentException when subject or data is missing, or the expected
     * sequence is negative
     */
    public OutboundMessage {
        if (subject == null || subject.isBlank()) {
            throw new IllegalArgumentException("subject is required");
        }
        if (data == null) {
            throw new IllegalArgumentException("data is required (an empty payload is an empty array)");
        }
        if (expectedLastSequence != null && expectedLastSequence < 0) {
            throw new IllegalArgumentException("expected last sequence must be 0 or more, got " + expectedLastSequence);
        }
        headers = headers == null || headers.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /**
     * @param subject the subject
     * @param data the payload bytes
     * @param messageId the {@code Nats-Msg-Id}, or {@code null}
     */
    public OutboundMessage(String subject, byte[] data, String messageId) {
        this(subject, data, messageId, Map.of(), null, null);
    }

    /**
     * @param subject the subject
     * @param text the payload as UTF-8 text
     * @return a message without a message id
     */
    public static OutboundMessage of(String subject, String text) {
        return new OutboundMessage(subject, text.getBytes(StandardCharsets.UTF_8), null);
    }

    /**
     * @param more headers to carry, in order
     * @return a copy with these headers
     */
    public OutboundMessage withHeaders(Map<String, String> more) {
        return new OutboundMessage(subject, data, messageId, more, expectedLastSequence, expectedLastMessageId);
    }

    /**
     * @param sequence the sequence the stream's last message must have
     * @return a copy that the stream stores only when its last message has that sequence
     */
    public OutboundMessage expectingLastSequence(long sequence) {
        return new OutboundMessage(subject, data, messageId, headers, sequence, expectedLastMessageId);
    }

    /**
     * @param id the message id the stream's last message must have
     * @return a copy that the stream stores only when its last message has that
     * {@code Nats-Msg-Id}
     */
    public OutboundMessage expectingLastMessageId(String id) {
        return new OutboundMessage(subject, data, messageId, headers, expectedLastSequence, id);
    }
}
