package io.varpulis.transport;

import java.nio.charset.StandardCharsets;

/**
 * One message to publish on the substrate.
 *
 * @param subject   the subject
 * @param data      the payload bytes (routed events: the event JSON)
 * @param messageId the {@code Nats-Msg-Id} for JetStream's duplicate window (2 min on VARPULIS_ROUTING), or
 *                  {@code null}; ignored on core, which publishes exactly the bytes it always did
 */
public record OutboundMessage(String subject, byte[] data, String messageId) {

    /**
     * @throws IllegalArgumentException when subject or data is missing
     */
    public OutboundMessage {
        if (subject == null || subject.isBlank()) {
            throw new IllegalArgumentException("subject is required");
        }
        if (data == null) {
            throw new IllegalArgumentException("data is required (an empty payload is an empty array)");
        }
    }

    /**
     * @param subject the subject
     * @param text    the payload as UTF-8 text
     * @return a message without a message id
     */
    public static OutboundMessage of(String subject, String text) {
        return new OutboundMessage(subject, text.getBytes(StandardCharsets.UTF_8), null);
    }
}
