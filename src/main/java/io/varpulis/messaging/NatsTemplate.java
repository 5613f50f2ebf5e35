package io.varpulis.messaging;

import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;

import java.util.concurrent.CompletableFuture;

/**
 * Publishes events on the substrate (SPEC section 13), in the manner of Spring Kafka's
 * {@code KafkaTemplate}: Jackson 2 serialisation, {@code Nats-Msg-Id} when the caller
 * gives one (the business id, so a retried publish is stored once), headers, and a future
 * of the broker's receipt.
 */
public class NatsTemplate {

    private final ClusterTransport transport;

    private final PayloadConverter converter;

    /**
     * @param transport the substrate's transport
     * @param converter writes payloads
     */
    public NatsTemplate(ClusterTransport transport, PayloadConverter converter) {
        this.transport = transport;
        this.converter = converter;
    }

    /**
     * @param subject the subject
     * @param payload the payload (see {@link OutboundEvent#payload()})
     * @return the receipt, as {@link #send(OutboundEvent)}
     */
    public CompletableFuture<PublishReceipt> send(String subject, Object payload) {
        return send(OutboundEvent.to(subject, payload));
    }

    /**
     * @param event the event
     * @return on jetstream, completes with the PubAck (stream, sequence,
     * {@code duplicate} when the message id was seen within the duplicate window);
     * exceptionally with {@code PublishException} when the event was not stored (no
     * stream captures the subject, no PubAck within
     * {@code varpulis.nats.jetstream.publish-timeout}). On core, completes once the bytes
     * are handed to the client
     * @throws IllegalArgumentException when the payload cannot be written as JSON
     */
    public CompletableFuture<PublishReceipt> send(OutboundEvent event) {
        return transport.publish(message(event));
    }

    OutboundMessage message(OutboundEvent event) {
        return new OutboundMessage(event.subject(), converter.write(event.payload()), event.messageId(),
                event.headers(), null, null);
    }

}
