package io.varpulis.dlq;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Map;

/**
 * One message of {@code VARPULIS_DLQ} as the console shows it, JSON
 * {@code {"sequence": 42, "subject": "varpulis.dlq.detect", "stored_at": "2026-11-30T12:00:03.120Z", "form": "json",
 * "envelope": {"original_subject": ..., "unit": ..., "attempts": 5, "dead_at": ..., "last_error": ...,
 * "payload": ..., "reason": ..., ...}, "payload_bytes": 120}}.
 * <p>
 * Both forms of a parked event (SPEC section 4) are shown alike, as the same
 * {@code envelope}: {@code form} is {@code json} for the JSON death envelope and
 * {@code headers} for the raw form of an event too large for it (the original bytes as
 * the body, the fields as {@code Varpulis-Dlq-*} headers). The envelope is shown whole,
 * with any field a newer parker added; a message that is neither (nothing the parker
 * writes) has {@code form} {@code unknown} and carries its text in {@code raw} instead.
 * In a list page a payload longer than {@code varpulis.dlq.max-payload-shown} is cut and
 * {@code payload_truncated} is {@code true}; show the event by its sequence for the whole
 * of it.
 *
 * @param sequence its sequence in {@code VARPULIS_DLQ}: the handle for show, replay and
 * purge
 * @param subject its DLQ subject, {@code varpulis.dlq.{sanitised unit}}
 * @param storedAt when the stream stored it (the park time), RFC 3339 UTC
 * @param form {@value #FORM_JSON}, {@value #FORM_HEADERS} or {@value #FORM_UNKNOWN}
 * @param envelope the death envelope (SPEC section 4) as JSON values (maps, lists,
 * strings, numbers), or {@code null} when the message is neither form
 * @param payloadBytes the size of the original payload, bytes (of the whole message for
 * an unknown one)
 * @param payloadTruncated {@code true} when the payload shown here was cut; {@code null}
 * (absent) otherwise
 * @param raw the message text when it is neither form, else {@code null}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ParkedEvent(@JsonProperty("sequence") long sequence, @JsonProperty("subject") String subject,
        @JsonProperty("stored_at") String storedAt, @JsonProperty("form") String form,
        @JsonProperty("envelope") Map<String, Object> envelope, @JsonProperty("payload_bytes") Long payloadBytes,
        @JsonProperty("payload_truncated") Boolean payloadTruncated, @JsonProperty("raw") String raw) {

    /** The JSON death envelope as the message body. */
    public static final String FORM_JSON = "json";

    /** The raw form: the original bytes as the body, the envelope's fields as headers. */
    public static final String FORM_HEADERS = "headers";

    /** Not something the parker wrote. */
    public static final String FORM_UNKNOWN = "unknown";

    /**
     * @return the envelope's {@code unit}, or the last token of the DLQ subject when the
     * envelope has none
     */
    public String unit() {
        if (envelope != null && envelope.get("unit") != null) {
            return envelope.get("unit").toString();
        }
        return subject.substring(subject.lastIndexOf('.') + 1);
    }
}
