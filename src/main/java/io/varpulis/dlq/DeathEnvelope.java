package io.varpulis.dlq;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * What a parked event carries into the DLQ (SPEC section 4, ADR-007), published on
 * {@code varpulis.dlq.{sanitised unit}} as JSON:
 * {@code {"original_subject","unit","attempts","dead_at","last_error","payload"|"payload_base64","reason",
 * "error_class","stream","stream_sequence","message_id","stored_at","trace_id","durable"}},
 * and {@code "parked_element"} for one element of a batch parked on its own.
 * <p>
 * {@code trace_id} (SPEC section 14) is the trace of the delivery that failed, when
 * observation is on with a tracer ({@code varpulis.nats.observation-enabled}); absent
 * otherwise, so a reader of the older shape reads it unchanged. The DLQ message's
 * {@code traceparent} header names the park's own span in that trace.
 * <p>
 * The payload travels as UTF-8 text when it is valid UTF-8, otherwise base64 in
 * {@code payload_base64}, so nothing is lost.
 *
 * @param originalSubject the subject the event was delivered on
 * @param unit the pipeline, or {@code coordinator:{id}} for heartbeats
 * @param attempts deliveries made, including the last
 * @param deadAt when it was parked, unix seconds
 * @param lastError the last failure's message
 * @param payload the original payload as text, or {@code null} when it is not valid UTF-8
 * @param payloadBase64 the original payload in base64 when it is not valid UTF-8, else
 * {@code null}
 * @param reason why: a {@link io.varpulis.transport.ParkReason}'s tag
 * ({@code undecodable}, {@code unprocessable}, {@code unroutable}, {@code max_deliver},
 * {@code server_gave_up})
 * @param errorClass the failure's Java class
 * @param stream the stream that held it, {@code null} on core
 * @param streamSequence its stream sequence, {@code null} on core
 * @param messageId its message id (the publisher's Nats-Msg-Id, or stream:sequence)
 * @param storedAt when the stream stored it, unix seconds, {@code null} on core
 * @param parkedElement for one element of a batch input parked on its own (a pipeline's
 * processor parks it, on a node): its position in the batch, from 0, the payload being
 * that element alone; {@code null} when the whole message was parked
 * @param traceId the trace id (hex) of the failed delivery's process span, {@code null}
 * when not traced
 * @param durable the durable consumer it was delivered through, {@code null} on core
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeathEnvelope(@JsonProperty("original_subject") String originalSubject, @JsonProperty("unit") String unit,
        @JsonProperty("attempts") long attempts, @JsonProperty("dead_at") long deadAt,
        @JsonProperty("last_error") String lastError, @JsonProperty("payload") String payload,
        @JsonProperty("payload_base64") String payloadBase64, @JsonProperty("reason") String reason,
        @JsonProperty("error_class") String errorClass, @JsonProperty("stream") String stream,
        @JsonProperty("stream_sequence") Long streamSequence, @JsonProperty("message_id") String messageId,
        @JsonProperty("stored_at") Long storedAt, @JsonProperty("parked_element") Integer parkedElement,
        @JsonProperty("trace_id") String traceId, @JsonProperty("durable") String durable) {

    /**
     * An envelope of a whole message (no {@code parked_element}); the parameters are the
     * canonical constructor's.
     */
    public DeathEnvelope(String originalSubject, String unit, long attempts, long deadAt, String lastError,
            String payload, String payloadBase64, String reason, String errorClass, String stream, Long streamSequence,
            String messageId, Long storedAt) {
        this(originalSubject, unit, attempts, deadAt, lastError, payload, payloadBase64, reason, errorClass, stream,
                streamSequence, messageId, storedAt, null, null, null);
    }

    /**
     * An envelope without a trace (the shape before SPEC section 14); the parameters are
     * the canonical constructor's.
     */
    public DeathEnvelope(String originalSubject, String unit, long attempts, long deadAt, String lastError,
            String payload, String payloadBase64, String reason, String errorClass, String stream, Long streamSequence,
            String messageId, Long storedAt, Integer parkedElement) {
        this(originalSubject, unit, attempts, deadAt, lastError, payload, payloadBase64, reason, errorClass, stream,
                streamSequence, messageId, storedAt, parkedElement, null, null);
    }

    /**
     * The JSON the library writes and reads envelopes with (the DLQ parker, the DLQ
     * console): RFC 3339 timestamps, unknown fields ignored (an envelope from a newer
     * writer), trailing tokens refused; the node's routed events use the same settings.
     * @return a new mapper
     */
    public static ObjectMapper jsonMapper() {
        return JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    }

    /**
     * @return the original payload bytes, from whichever of {@code payload} and
     * {@code payload_base64} is set
     */
    public byte[] originalPayload() {
        if (payloadBase64 != null) {
            return Base64.getDecoder().decode(payloadBase64);
        }
        return payload == null ? new byte[0] : payload.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param data payload bytes
     * @return the bytes as text when they are valid UTF-8, else {@code null}
     */
    static String utf8OrNull(byte[] data) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(data))
                .toString();
        }
        catch (CharacterCodingException e) {
            return null;
        }
    }
}
