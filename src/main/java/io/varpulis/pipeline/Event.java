package io.varpulis.pipeline;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

import java.time.Instant;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A routed event, the payload carried on
 * {@code varpulis.cluster.pipeline.{group}.{from}.{to}} (SPEC section 6).
 * <p>
 * JSON shape:
 * {@code {"event_type": "SshAuthFailure", "timestamp": "2026-11-30T12:00:00Z", "fields":
 * {"src_ip": "10.0.0.9"}}}; {@code timestamp} is optional (RFC 3339, UTC).
 *
 * @param eventType the event's type name, matched by route patterns ({@code *},
 * {@code Prefix*}, exact); never blank
 * @param timestamp when the event happened, or {@code null} when the source did not say
 * @param fields the event's attributes (JSON values: strings, numbers, booleans, lists,
 * maps); never {@code null}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Event(@JsonProperty("event_type") String eventType,
        @JsonProperty("timestamp") @JsonDeserialize(using = EventTimestampDeserializer.class) Instant timestamp,
        @JsonProperty("fields") Map<String, Object> fields) {

    /**
     * Validates and freezes the event.
     * @throws IllegalArgumentException when {@code eventType} is null or blank
     */
    public Event {
        if (eventType == null || eventType.isBlank()) {
            throw new IllegalArgumentException("event_type is required and must not be blank");
        }
        fields = fields == null ? Map.of() : Collections
            .unmodifiableMap(fields instanceof Decoded decoded ? decoded.members : new LinkedHashMap<>(fields));
    }

    /**
     * The event a codec read, taking its fields map over instead of copying it
     * ({@link EventReader}), or an element of a decoded batch
     * ({@link EventBatch#elements}).
     * @param fields a map nobody changes afterwards (one the codec made), or {@code null}
     * @throws IllegalArgumentException when {@code eventType} is null or blank
     */
    static Event decoded(String eventType, Instant timestamp, Map<String, Object> fields) {
        return new Event(eventType, timestamp, fields == null ? null : new Decoded(fields));
    }

    /**
     * Creates an event without a timestamp.
     * @param eventType the event's type name
     * @param fields its attributes
     * @return the event
     */
    public static Event of(String eventType, Map<String, Object> fields) {
        return new Event(eventType, null, fields);
    }

    /**
     * Reads a field as text.
     * @param name the field name
     * @return the field's value as a string, or {@code null} when absent
     */
    public String field(String name) {
        Object value = fields.get(name);
        return value == null ? null : value.toString();
    }

    /**
     * A fields map handed over by {@link #decoded}: the constructor keeps it rather than
     * a copy.
     */
    private static final class Decoded extends AbstractMap<String, Object> {

        private final Map<String, Object> members;

        private Decoded(Map<String, Object> members) {
            this.members = members;
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            return members.entrySet();
        }

    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Event e && eventType.equals(e.eventType) && Objects.equals(timestamp, e.timestamp)
                && fields.equals(e.fields);
    }

    @Override
    public int hashCode() {
        return Objects.hash(eventType, timestamp, fields);
    }
}
