package io.varpulis.dlq;

import io.nats.client.impl.Headers;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The raw form of a parked event (SPEC section 4), for an event too large for the JSON
 * {@link DeathEnvelope}: the message body is the original payload verbatim, and the
 * envelope's fields travel as headers, in the manner of Spring Kafka's
 * {@code kafka_dlt-*} headers: <pre>
 * Varpulis-Dlq-Original-Subject, Varpulis-Dlq-Unit, Varpulis-Dlq-Reason, Varpulis-Dlq-Parked-Element,
 * Varpulis-Dlq-Attempts, Varpulis-Dlq-Dead-At, Varpulis-Dlq-Stream, Varpulis-Dlq-Stream-Sequence,
 * Varpulis-Dlq-Durable, Varpulis-Dlq-Message-Id, Varpulis-Dlq-Stored-At, Varpulis-Dlq-Error-Class, Varpulis-Dlq-Trace-Id,
 * Varpulis-Dlq-Last-Error
 * </pre> ({@code Varpulis-Dlq-Parked-Element} for one element of a batch parked alone,
 * the body then being that element.) Values are UTF-8, percent-encoded where a header
 * value may not hold the character ({@code %}, controls, CR, LF, anything outside
 * US-ASCII). The headers are added in that order while they fit under the server's
 * max_payload; {@code last_error} is cut to what room is left (then
 * {@code Varpulis-Dlq-Last-Error-Truncated: true}). The presence of
 * {@value #ORIGINAL_SUBJECT} marks the raw form.
 */
public final class DeadLetterHeaders {

    /** The header that marks the raw form and names the subject to replay to. */
    public static final String ORIGINAL_SUBJECT = "Varpulis-Dlq-Original-Subject";

    /** Set when {@code Varpulis-Dlq-Last-Error} was cut to fit. */
    public static final String LAST_ERROR_TRUNCATED = "Varpulis-Dlq-Last-Error-Truncated";

    private static final String LAST_ERROR = "Varpulis-Dlq-Last-Error";

    /** {@code NATS/1.0\r\n} and the blank line that ends a header block, bytes. */
    private static final int HEADER_BLOCK_FRAMING = 12;

    /**
     * The fields in the order they are kept when room is short: what replay and triage
     * need first.
     */
    private static final List<Field> FIELDS = List.of(
            new Field(ORIGINAL_SUBJECT, "original_subject", DeathEnvelope::originalSubject),
            new Field("Varpulis-Dlq-Unit", "unit", DeathEnvelope::unit),
            new Field("Varpulis-Dlq-Reason", "reason", DeathEnvelope::reason),
            new Field("Varpulis-Dlq-Parked-Element", "parked_element",
                    e -> e.parkedElement() == null ? null : e.parkedElement().toString()),
            new Field("Varpulis-Dlq-Attempts", "attempts", e -> Long.toString(e.attempts())),
            new Field("Varpulis-Dlq-Dead-At", "dead_at", e -> Long.toString(e.deadAt())),
            new Field("Varpulis-Dlq-Stream", "stream", DeathEnvelope::stream),
            new Field("Varpulis-Dlq-Stream-Sequence", "stream_sequence", e -> text(e.streamSequence())),
            new Field("Varpulis-Dlq-Durable", "durable", DeathEnvelope::durable),
            new Field("Varpulis-Dlq-Message-Id", "message_id", DeathEnvelope::messageId),
            new Field("Varpulis-Dlq-Stored-At", "stored_at", e -> text(e.storedAt())),
            new Field("Varpulis-Dlq-Error-Class", "error_class", DeathEnvelope::errorClass),
            new Field("Varpulis-Dlq-Trace-Id", "trace_id", DeathEnvelope::traceId));

    private DeadLetterHeaders() {
    }

    /**
     * @param envelope the envelope (its payload fields are ignored: the body carries the
     * payload)
     * @param room bytes the header block may take (max_payload less the body and the
     * message id header)
     * @return the headers that fit, in priority order; empty when not even the original
     * subject fits
     */
    public static Map<String, String> of(DeathEnvelope envelope, long room) {
        Map<String, String> headers = new LinkedHashMap<>();
        long left = room - HEADER_BLOCK_FRAMING;
        for (Field field : FIELDS) {
            String value = field.value().apply(envelope);
            if (value == null) {
                continue;
            }
            String encoded = encode(value);
            long cost = cost(field.header(), encoded);
            if (cost > left) {
                break;
            }
            headers.put(field.header(), encoded);
            left -= cost;
        }
        String error = envelope.lastError() == null ? null : encode(envelope.lastError());
        if (headers.containsKey(ORIGINAL_SUBJECT) && error != null) {
            long full = cost(LAST_ERROR, error);
            if (full <= left) {
                headers.put(LAST_ERROR, error);
            }
            else {
                long cut = left - cost(LAST_ERROR_TRUNCATED, "true") - cost(LAST_ERROR, "");
                if (cut > 0) {
                    headers.put(LAST_ERROR, cutEncoded(error, (int) Math.min(cut, Integer.MAX_VALUE)));
                    headers.put(LAST_ERROR_TRUNCATED, "true");
                }
            }
        }
        return headers;
    }

    /**
     * @param headers a DLQ message's headers, or {@code null}
     * @return {@code true} when it is a parked event in the raw form
     */
    public static boolean isRawForm(Headers headers) {
        return headers != null && headers.getFirst(ORIGINAL_SUBJECT) != null;
    }

    /**
     * Reads a raw-form parked event back as the envelope it stands for.
     * @param headers its headers
     * @param body its body: the original payload
     * @return the envelope, with the payload as text when it is valid UTF-8, else in
     * base64
     */
    public static DeathEnvelope envelope(Headers headers, byte[] body) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (Field field : FIELDS) {
            String value = headers.getFirst(field.header());
            if (value != null) {
                fields.put(field.json(), decode(value));
            }
        }
        String error = headers.getFirst(LAST_ERROR);
        String text = DeathEnvelope.utf8OrNull(body);
        return new DeathEnvelope(fields.get("original_subject"), fields.get("unit"), number(fields.get("attempts")),
                number(fields.get("dead_at")), error == null ? null : decode(error), text,
                text == null ? Base64.getEncoder().encodeToString(body) : null, fields.get("reason"),
                fields.get("error_class"), fields.get("stream"), boxed(fields.get("stream_sequence")),
                fields.get("message_id"), boxed(fields.get("stored_at")), element(fields.get("parked_element")),
                fields.get("trace_id"), fields.get("durable"));
    }

    /**
     * @param value any text
     * @return the text as a header value: UTF-8 with {@code %}, controls and non-ASCII
     * characters as {@code %XX}
     */
    static String encode(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c < 0x20 || c >= 0x7f || c == '%') {
                out.append('%')
                    .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                    .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
            else {
                out.append((char) c);
            }
        }
        return out.toString();
    }

    /**
     * @param value a header value written by {@link #encode}
     * @return the text
     */
    static String decode(String value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '%' && i + 2 < value.length()) {
                bytes.write(Integer.parseInt(value.substring(i + 1, i + 3), 16));
                i += 2;
            }
            else {
                bytes.write(c);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static String cutEncoded(String encoded, int length) {
        int end = Math.min(length, encoded.length());
        // Never cut inside a %XX escape.
        int escape = encoded.lastIndexOf('%', end - 1);
        if (escape >= 0 && escape > end - 3) {
            end = escape;
        }
        return encoded.substring(0, end);
    }

    private static long cost(String header, String value) {
        return header.length() + 2L + value.length() + 2L;
    }

    private static String text(Long value) {
        return value == null ? null : value.toString();
    }

    /**
     * A number header, 0 when absent or not a number (another version's or a hand-edited
     * message is still shown).
     */
    private static long number(String value) {
        Long number = boxed(value);
        return number == null ? 0 : number;
    }

    /** A number header, {@code null} when absent or not a number. */
    private static Long boxed(String value) {
        try {
            return value == null ? null : Long.valueOf(value.trim());
        }
        catch (NumberFormatException e) {
            return null;
        }
    }

    private static Integer element(String value) {
        Long index = boxed(value);
        return index == null || index < 0 || index > Integer.MAX_VALUE ? null : index.intValue();
    }

    private record Field(String header, String json, Function<DeathEnvelope, String> value) {
    }

}
