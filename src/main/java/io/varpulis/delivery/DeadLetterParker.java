package io.varpulis.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.ProcessingContext;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Parks an event: publishes its {@link DeathEnvelope} on {@code varpulis.dlq.{unit}} and acks the original only after
 * the DLQ's PubAck; when the park fails the original is nak'ed instead (ADR-007). On its last delivery a nak would
 * strand it (the server delivers nothing past max_deliver), so while the DLQ is unavailable the park is tried again
 * for up to {@link #LAST_DELIVERY_PARK_PATIENCE} (longer than a leader election or a short outage), the delivery
 * kept in progress; if the DLQ still does not take it, or refuses it, an ERROR names the stream sequence to recover
 * by hand and {@code varpulis.events.stranded{unit}} counts it. On core nothing can be stored: the envelope is logged
 * at ERROR as lost.
 * <p>An event that fit the routing stream always fits the DLQ (SPEC section 4): when the JSON envelope would exceed
 * the server's max_payload (a 900 KB binary event is a 1.2 MB envelope in base64), the event is parked in the raw
 * form of {@link DeadLetterHeaders}: its original bytes as the body, the envelope's fields as headers.
 * <p>The DLQ publish carries {@code Nats-Msg-Id = dlq:{stream}:{sequence}}, so a park repeated after a crash between
 * the PubAck and the ack is stored once.
 * <p>When the delivery is observed with a tracer (SPEC section 14) the envelope names its trace in {@code trace_id}
 * ({@code Varpulis-Dlq-Trace-Id} in the raw form).
 */
public class DeadLetterParker {

    /** How long the park of an event on its last delivery is tried again while the DLQ is unavailable. */
    static final Duration LAST_DELIVERY_PARK_PATIENCE = Duration.ofMinutes(2);

    /** Longest wait between two tries of a last-delivery park. */
    private static final long MAX_PARK_WAIT_MILLIS = 8000;

    /** The {@code Nats-Msg-Id} header line without its value ({@code name: value\r\n}), bytes. */
    private static final int MESSAGE_ID_HEADER_BYTES = "Nats-Msg-Id".length() + 4;

    /** {@code NATS/1.0\r\n} and the blank line that ends a header block, bytes. */
    private static final int HEADER_BLOCK_FRAMING = 12;

    /**
     * Room, in bytes under max_payload, that the raw form needs beside an event for its envelope's headers (the
     * original subject first, then unit, reason, attempts...) and its message id: the operator API refuses (413) an
     * event that would leave less, so that everything it accepts can be parked with what a replay needs.
     */
    public static final int RAW_FORM_HEADER_RESERVE = 1024;

    private static final Logger log = LoggerFactory.getLogger(DeadLetterParker.class);

    private final ClusterTransport transport;
    private final ObjectMapper mapper;
    private final SubstrateMetrics metrics;
    private final Duration nakDelay;
    private final Clock clock;

    /**
     * @param transport publishes the envelope
     * @param mapper    writes the envelope JSON
     * @param metrics   counts {@code varpulis.events.parked{unit,reason}}
     * @param nakDelay  redelivery delay when the park itself fails
     * @param clock     gives {@code dead_at}
     */
    public DeadLetterParker(ClusterTransport transport, ObjectMapper mapper, SubstrateMetrics metrics,
                            Duration nakDelay, Clock clock) {
        this.transport = transport;
        this.mapper = mapper;
        this.metrics = metrics;
        this.nakDelay = nakDelay;
        this.clock = clock;
    }

    /**
     * Parks a delivery and settles it: ack after the DLQ PubAck, nak when the park failed.
     *
     * @param delivery the delivery to park (not yet acked or nak'ed)
     * @param unit     the pipeline, or {@code coordinator:{id}} for heartbeats
     * @param reason   why
     * @param error    the last failure
     * @return completes when the delivery is settled: normally when parked, exceptionally with the publish error
     * when the park failed (the delivery was then nak'ed)
     */
    public CompletableFuture<Void> park(Delivery delivery, String unit, ParkReason reason, Throwable error) {
        DeathEnvelope envelope = envelope(delivery, unit, reason, error);
        String subject = DurableNames.dlqSubject(unit);
        if (transport.substrate() == Substrate.CORE) {
            log.error("core substrate: event on {} could not be applied ({}: {}) and is lost, core NATS cannot park "
                            + "it; set VARPULIS_NATS_SUBSTRATE=jetstream to keep it. Envelope: {}",
                    delivery.subject(), reason.tag(), envelope.lastError(), json(envelope));
            delivery.ack();
            metrics.parked(unit, reason.tag());
            return CompletableFuture.completedFuture(null);
        }
        String messageId = "dlq:" + delivery.stream() + ":" + delivery.streamSequence();
        return publish(delivery, unit, reason, envelope, message(delivery, envelope, subject, messageId), 1,
                System.nanoTime());
    }

    /**
     * Publishes the death envelope of one element of a batch input ({@link ProcessingContext#park}), without settling
     * the input: the caller acks it once this and the apply's outputs are confirmed. The envelope's payload is the
     * element alone (an event's JSON), its {@code parked_element} the element's index; the message id
     * {@code dlq:{stream}:{sequence}:{index}} makes a park repeated after a redelivery of the batch stored once. The
     * caller counts {@code varpulis.events.parked} once the input is acked. On core the element is logged at ERROR as
     * lost.
     *
     * @param delivery the batch input (not acked)
     * @param unit     the pipeline
     * @param index    the element's position in the batch, from 0
     * @param element  the element's JSON, UTF-8
     * @param reason   why it could not be applied
     * @return completes on the DLQ's PubAck; exceptionally with the publish error
     */
    public CompletableFuture<Void> parkElement(Delivery delivery, String unit, int index, byte[] element,
                                               String reason) {
        String text = DeathEnvelope.utf8OrNull(element);
        boolean stored = delivery.stream() != null;
        DeathEnvelope envelope = new DeathEnvelope(delivery.subject(), unit, delivery.attempt(),
                clock.instant().getEpochSecond(), reason, text,
                text == null ? Base64.getEncoder().encodeToString(element) : null, ParkReason.UNPROCESSABLE.tag(),
                null, delivery.stream(), stored ? delivery.streamSequence() : null, delivery.messageId(),
                delivery.storedAt().map(t -> t.getEpochSecond()).orElse(null), index, delivery.traceId());
        if (transport.substrate() == Substrate.CORE) {
            log.error("core substrate: element {} of the event on {} could not be applied ({}) and is lost, core NATS "
                    + "cannot park it; set VARPULIS_NATS_SUBSTRATE=jetstream to keep it. Envelope: {}", index,
                    delivery.subject(), reason, json(envelope));
            return CompletableFuture.completedFuture(null);
        }
        String subject = DurableNames.dlqSubject(unit);
        String messageId = "dlq:" + delivery.stream() + ":" + delivery.streamSequence() + ":" + index;
        OutboundMessage message = message(delivery, envelope, subject, messageId, element, "element " + index + " of "
                + delivery);
        if (message.messageId() == null || !message.headers().isEmpty()
                && !message.headers().containsKey(DeadLetterHeaders.ORIGINAL_SUBJECT)) {
            // Not even the raw form keeps what a replay and the redelivery's dedup need (an element as large as its
            // batch's whole budget): the batch fails instead, and is parked whole on its last delivery.
            return CompletableFuture.failedFuture(new IllegalArgumentException("element " + index + " ("
                    + element.length + " bytes) cannot be parked alone under the server's max_payload of "
                    + transport.maxPayload() + " bytes with its original subject and message id"));
        }
        return transport.publish(message)
                .thenAccept(receipt -> log.warn("parked element {} of {} in {} at DLQ sequence {} (unprocessable: {})",
                        index, delivery, subject, receipt.sequence(), reason));
    }

    /** The JSON envelope, or the raw form when the envelope would not fit under max_payload. */
    private OutboundMessage message(Delivery delivery, DeathEnvelope envelope, String subject, String messageId) {
        return message(delivery, envelope, subject, messageId, delivery.data(), delivery.toString());
    }

    /**
     * The JSON envelope, or the raw form when it would not fit under max_payload: {@code original} verbatim as the
     * body, the envelope's fields as headers, as many as fit (the original subject first); the message id is dropped
     * only when not even the original subject fits beside it.
     *
     * @param original what the envelope carries: the delivery's payload, or the one element parked alone
     * @param what     what is parked, for the log
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
            // Not even the original subject fits beside the message id: keep the event, drop the id.
            headers = DeadLetterHeaders.of(envelope, maxPayload - original.length);
            id = null;
        }
        log.warn("{} is {} bytes: its death envelope ({} bytes) is over the server's max_payload ({} bytes); parking "
                        + "it in the raw form (the original bytes as the body, {} envelope field(s) as Varpulis-Dlq-* "
                        + "headers)", what, original.length, json.length, maxPayload, headers.size());
        return new OutboundMessage(subject, original, id, headers, null, null);
    }

    private CompletableFuture<Void> publish(Delivery delivery, String unit, ParkReason reason, DeathEnvelope envelope,
                                            OutboundMessage message, int attempt, long started) {
        return transport.publish(message).handle((receipt, publishError) -> {
            if (publishError == null) {
                delivery.ack();
                metrics.parked(unit, reason.tag());
                log.warn("parked {} in {} at DLQ sequence {} ({}: {})", delivery, message.subject(),
                        receipt.sequence(), reason.tag(), envelope.lastError());
                return CompletableFuture.<Void>completedFuture(null);
            }
            if (!delivery.isLastAttempt()) {
                log.error("could not park {} in {} ({}); nak'ed it for redelivery", delivery, message.subject(),
                        publishError.getMessage());
                delivery.nak(nakDelay);
                return CompletableFuture.<Void>failedFuture(parkFailed(publishError));
            }
            boolean unavailable = PublishException.classify(publishError) == PublishException.Kind.UNAVAILABLE;
            if (unavailable && System.nanoTime() - started < LAST_DELIVERY_PARK_PATIENCE.toNanos()) {
                // A nak now would strand it (the server never delivers past max_deliver): keep it in progress and
                // try the DLQ again, waiting 1, 2, 4, 8, 8... s.
                delivery.inProgress();
                long waitMs = Math.min(MAX_PARK_WAIT_MILLIS, 1000L << Math.min(attempt - 1, 10));
                log.warn("could not park {} in {} ({}); it is on its last delivery: trying again in {} ms", delivery,
                        message.subject(), publishError.getMessage(), waitMs);
                return CompletableFuture.runAsync(() -> { },
                                CompletableFuture.delayedExecutor(waitMs, TimeUnit.MILLISECONDS))
                        .thenCompose(ignored -> publish(delivery, unit, reason, envelope, message, attempt + 1,
                                started));
            }
            log.error("could not park {} in {} after {} tries ({}); the server will not deliver it again: recover "
                            + "it by hand from stream {} sequence {}", delivery, message.subject(), attempt,
                    publishError.getMessage(), delivery.stream(), delivery.streamSequence());
            metrics.stranded(unit);
            delivery.nak(nakDelay);
            return CompletableFuture.<Void>failedFuture(parkFailed(publishError));
        }).thenCompose(settled -> settled);
    }

    private static IllegalStateException parkFailed(Throwable publishError) {
        return new IllegalStateException("park failed: " + publishError.getMessage(), publishError);
    }

    private DeathEnvelope envelope(Delivery delivery, String unit, ParkReason reason, Throwable error) {
        byte[] data = delivery.data();
        String text = DeathEnvelope.utf8OrNull(data);
        boolean stored = delivery.stream() != null;
        return new DeathEnvelope(delivery.subject(), unit, delivery.attempt(), clock.instant().getEpochSecond(),
                describe(error), text, text == null ? Base64.getEncoder().encodeToString(data) : null,
                reason.tag(), error == null ? null : error.getClass().getName(),
                delivery.stream(), stored ? delivery.streamSequence() : null, delivery.messageId(),
                delivery.storedAt().map(t -> t.getEpochSecond()).orElse(null), null, delivery.traceId());
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
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a death envelope", e);
        }
    }
}
