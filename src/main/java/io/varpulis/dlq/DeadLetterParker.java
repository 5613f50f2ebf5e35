package io.varpulis.dlq;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Publishes death envelopes (ADR-007): a parked event's {@link DeathEnvelope} on
 * {@code varpulis.dlq.{unit}}, and reports the DLQ's PubAck. It never settles the
 * delivery: the {@link io.varpulis.container.DeliveryContainer} acks it once the envelope
 * is stored ({@link Delivery#parked}), and decides what a failed park becomes
 * ({@link io.varpulis.container.Settlement}). On core nothing can be stored: the envelope
 * is logged at ERROR as lost.
 * <p>
 * An event that fit the routing stream always fits the DLQ (SPEC section 4): when the
 * JSON envelope would exceed the server's max_payload (a 900 KB binary event is a 1.2 MB
 * envelope in base64), the event is parked in the raw form of {@link DeadLetterHeaders}:
 * its original bytes as the body, the envelope's fields as headers.
 * <p>
 * The DLQ publish carries {@code Nats-Msg-Id = dlq:{stream}:{sequence}}, so a park
 * repeated after a crash between the PubAck and the ack (or by the server's
 * max-deliveries advisory while its last delivery was being parked) is stored once.
 * <p>
 * When the delivery is observed with a tracer (SPEC section 14) the envelope names its
 * trace in {@code trace_id} ({@code Varpulis-Dlq-Trace-Id} in the raw form), and the
 * publish, made in the delivery's context, is a child of its process observation.
 */
public class DeadLetterParker {

    /**
     * The {@code Nats-Msg-Id} header line without its value ({@code name: value\r\n}),
     * bytes.
     */
    private static final int MESSAGE_ID_HEADER_BYTES = "Nats-Msg-Id".length() + 4;

    /** {@code NATS/1.0\r\n} and the blank line that ends a header block, bytes. */
    private static final int HEADER_BLOCK_FRAMING = 12;

    /**
     * Room, in bytes under max_payload, that the raw form needs beside an event for its
     * envelope's headers (the original subject first, then unit, reason, attempts...) and
     * its message id: the operator API refuses (413) an event that would leave less, so
     * that everything it accepts can be parked with what a replay needs.
     */
    public static final int RAW_FORM_HEADER_RESERVE = 1024;

    private static final Logger log = LoggerFactory.getLogger(DeadLetterParker.class);

    private final ClusterTransport transport;

    private final ObjectMapper mapper;

    private final Clock clock;

    /**
     * @param transport publishes the envelope
     * @param mapper writes the envelope JSON
     * @param clock gives {@code dead_at}
     */
    public DeadLetterParker(ClusterTransport transport, ObjectMapper mapper, Clock clock) {
        this.transport = transport;
        this.mapper = mapper;
        this.clock = clock;
    }

    /**
     * Publishes a delivery's death envelope; settles nothing.
     * @param delivery the delivery to park (not settled)
     * @param unit the pipeline, the listener, or {@code coordinator:{id}} for heartbeats
     * @param durable the durable consumer it came through, or {@code null}
     * @param reason why
     * @param error the last failure, or {@code null}
     * @return the DLQ's receipt (on core: a receipt without stream, the envelope logged
     * as lost); exceptionally with the publish's
     * {@link io.varpulis.transport.PublishException} when the DLQ did not store it
     */
    public CompletableFuture<PublishReceipt> publish(Delivery delivery, String unit, String durable, ParkReason reason,
            Throwable error) {
        DeathEnvelope envelope = envelope(delivery, unit, durable, reason, error);
        String subject = DurableNames.dlqSubject(unit);
        if (transport.substrate() == Substrate.CORE) {
            log.error(
                    "core substrate: event on {} could not be applied ({}: {}) and is lost, core NATS cannot park "
                            + "it; set VARPULIS_NATS_SUBSTRATE=jetstream to keep it. Envelope: {}",
                    delivery.subject(), reason.tag(), envelope.lastError(), json(envelope));
            return CompletableFuture.completedFuture(new PublishReceipt(subject, null, 0, false));
        }
        String messageId = "dlq:" + delivery.stream() + ":" + delivery.streamSequence();
        return transport.publish(message(delivery, envelope, subject, messageId));
    }

    /**
     * Publishes the death envelope of one element of a batch input (a processor's
     * {@code ProcessingContext.park}), without settling the input: the caller acks it
     * once this and the apply's outputs are confirmed. The envelope's payload is the
     * element alone (an event's JSON), its {@code parked_element} the element's index;
     * the message id {@code dlq:{stream}:{sequence}:{index}} makes a park repeated after
     * a redelivery of the batch stored once. The caller counts
     * {@code varpulis.events.parked} once the input is acked. On core the element is
     * logged at ERROR as lost.
     * @param delivery the batch input (not acked)
     * @param unit the pipeline
     * @param index the element's position in the batch, from 0
     * @param element the element's JSON, UTF-8
     * @param reason why it could not be applied
     * @return completes on the DLQ's PubAck; exceptionally with the publish error
     */
    public CompletableFuture<Void> parkElement(Delivery delivery, String unit, int index, byte[] element,
            String reason) {
        String text = DeathEnvelope.utf8OrNull(element);
        boolean stored = delivery.stream() != null;
        DeathEnvelope envelope = new DeathEnvelope(delivery.subject(), unit, delivery.attempt(),
                clock.instant().getEpochSecond(), reason, text,
                text == null ? Base64.getEncoder().encodeToString(element) : null, ParkReason.UNPROCESSABLE.tag(), null,
                delivery.stream(), stored ? delivery.streamSequence() : null, delivery.messageId(),
                delivery.storedAt().map(t -> t.getEpochSecond()).orElse(null), index, delivery.traceId(), null);
        if (transport.substrate() == Substrate.CORE) {
            log.error(
                    "core substrate: element {} of the event on {} could not be applied ({}) and is lost, core NATS "
                            + "cannot park it; set VARPULIS_NATS_SUBSTRATE=jetstream to keep it. Envelope: {}",
                    index, delivery.subject(), reason, json(envelope));
            return CompletableFuture.completedFuture(null);
        }
        String subject = DurableNames.dlqSubject(unit);
        String messageId = "dlq:" + delivery.stream() + ":" + delivery.streamSequence() + ":" + index;
        OutboundMessage message = message(delivery, envelope, subject, messageId, element,
                "element " + index + " of " + delivery);
        if (message.messageId() == null
                || !message.headers().isEmpty() && !message.headers().containsKey(DeadLetterHeaders.ORIGINAL_SUBJECT)) {
            // Not even the raw form keeps what a replay and the redelivery's dedup need
            // (an element as large as its
            // batch's whole budget): the batch fails instead, and is parked whole on its
            // last delivery.
            return CompletableFuture.failedFuture(new IllegalArgumentException("element " + index + " ("
                    + element.length + " bytes) cannot be parked alone under the server's max_payload of "
                    + transport.maxPayload() + " bytes with its original subject and message id"));
        }
        return transport.publish(message)
            .thenAccept(receipt -> log.warn("parked element {} of {} in {} at DLQ sequence {} (unprocessable: {})",
                    index, delivery, subject, receipt.sequence(), reason));
    }

    /**
     * The JSON envelope, or the raw form when the envelope would not fit under
     * max_payload.
     */
    private OutboundMessage message(Delivery delivery, DeathEnvelope envelope, String subject, String messageId) {
        return message(delivery, envelope, subject, messageId, delivery.data(), delivery.toString());
    }

    /**
     * The JSON envelope, or the raw form when it would not fit under max_payload:
     * {@code original} verbatim as the body, the envelope's fields as headers, as many as
     * fit (the original subject first); the message id is dropped only when not even the
     * original subject fits beside it.
     * @param original what the envelope carries: the delivery's payload, or the one
     * element parked alone
     * @param what what is parked, for the log
     */
    private OutboundMessage message(Delivery delivery, DeathEnvelope envelope, String subject, String messageId,
            byte[] original, String what) {
        byte[] json = json(envelope).getBytes(StandardCharsets.UTF_8);
        long maxPayload = transport.maxPayload();
        long idHeader = MESSAGE_ID_HEADER_BYTES + messageId.length();
        if (maxPayload <= 0 || json.length + HEADER_BLOCK_FRAMING + idHeader <= maxPayload) {
            return new OutboundMessage(subject, json, messageId);
        }
        Map<String, String> headers = DeadLetterHeaders.of(envelope, maxPayload - original.length - idHeader);
        String id = messageId;
        if (headers.isEmpty()) {
            // Not even the original subject fits beside the message id: keep the event,
            // drop the id.
            headers = DeadLetterHeaders.of(envelope, maxPayload - original.length);
            id = null;
        }
        log.warn("{} is {} bytes: its death envelope ({} bytes) is over the server's max_payload ({} bytes); parking "
                + "it in the raw form (the original bytes as the body, {} envelope field(s) as Varpulis-Dlq-* "
                + "headers)", what, original.length, json.length, maxPayload, headers.size());
        return new OutboundMessage(subject, original, id, headers, null, null);
    }

    private DeathEnvelope envelope(Delivery delivery, String unit, String durable, ParkReason reason, Throwable error) {
        byte[] data = delivery.data();
        String text = DeathEnvelope.utf8OrNull(data);
        boolean stored = delivery.stream() != null;
        return new DeathEnvelope(delivery.subject(), unit, delivery.attempt(), clock.instant().getEpochSecond(),
                describe(error), text, text == null ? Base64.getEncoder().encodeToString(data) : null, reason.tag(),
                error == null ? null : error.getClass().getName(), delivery.stream(),
                stored ? delivery.streamSequence() : null, delivery.messageId(),
                delivery.storedAt().map(t -> t.getEpochSecond()).orElse(null), null, delivery.traceId(), durable);
    }

    private static String describe(Throwable error) {
        if (error == null) {
            return "unknown";
        }
        return error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage();
    }

    private String json(DeathEnvelope envelope) {
        try {
            return mapper.writeValueAsString(envelope);
        }
        catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a death envelope", e);
        }
    }

}
