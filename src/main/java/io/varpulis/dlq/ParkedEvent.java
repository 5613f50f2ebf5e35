package io.varpulis.dlq;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Map;

/**
 * One message of {@code VARPULIS_DLQ} as the console shows it, JSON
 * {@code {"sequence": 42, "subject": "varpulis.dlq.detect", "stored_at": "2026-11-30T12:00:03.120Z",
 * "envelope": {"original_subject": ..., "unit": ..., "attempts": 5, "dead_at": ..., "last_error": ...,
 * "payload": ..., "reason": ..., ...}}}.
 * <p>The envelope is shown whole, with any field a newer parker added; a message that is not a JSON object (nothing
 * the parker writes) has no {@code envelope} and carries its text in {@code raw} instead.
 *
 * @param sequence its sequence in {@code VARPULIS_DLQ}: the handle for show, replay and purge
 * @param subject  its DLQ subject, {@code varpulis.dlq.{sanitised unit}}
 * @param storedAt when the stream stored it (the park time), RFC 3339 UTC
 * @param envelope the death envelope (SPEC section 4) as JSON values (maps, lists, strings, numbers), or
 *                 {@code null} when the message is not a JSON object
 * @param raw      the message text when it is not a JSON object, else {@code null}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ParkedEvent(
        @JsonProperty("sequence") long sequence,
        @JsonProperty("subject") String subject,
        @JsonProperty("stored_at") String storedAt,
        @JsonProperty("envelope") Map<String, Object> envelope,
        @JsonProperty("raw") String raw) {

    /**
     * @return the envelope's {@code unit}, or the last token of the DLQ subject when the envelope has none
     */
    public String unit() {
        if (envelope != null && envelope.get("unit") != null) {
            return envelope.get("unit").toString();
        }
        return subject.substring(subject.lastIndexOf('.') + 1);
    }
}
