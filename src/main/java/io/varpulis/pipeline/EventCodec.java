package io.varpulis.pipeline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.varpulis.dlq.DeathEnvelope;

import java.io.IOException;

/**
 * Reads and writes routed events as the JSON of SPEC section 6, with Jackson. Reads the
 * flat shape too (SPEC section 17: the data at the top level, as Varpulis's NATS
 * connector writes it) into {@code fields}; writes the nested shape, or the flat one with
 * {@link #encodeFlat(Event)} where a route asks for it.
 */
public class EventCodec {

    private static final String EVENT_TYPE = "event_type";

    private static final String TIMESTAMP = "timestamp";

    private static final String FIELDS = "fields";

    private final ObjectMapper mapper;

    // Resolved once: mapper.readValue(data, Event.class) looks the type and its
    // deserializer up on every call.
    private final ObjectReader reader;

    private final ObjectWriter writer;

    // The streaming reader, or null when the mapper reads untyped values differently
    // (then data binding).
    private final EventReader streaming;

    // The streaming writer, or null when the mapper writes events otherwise (then data
    // binding).
    private final EventWriter streamingWriter;

    /**
     * Creates a codec with its own mapper, set as the library's DLQ envelopes' (RFC 3339
     * timestamps, unknown fields ignored: newer publishers).
     */
    public EventCodec() {
        this(DeathEnvelope.jsonMapper());
    }

    /**
     * @param mapper the mapper to use (it must read and write {@link java.time.Instant}
     * as RFC 3339)
     */
    public EventCodec(ObjectMapper mapper) {
        this.mapper = mapper;
        this.reader = mapper.readerFor(Event.class);
        this.writer = mapper.writerFor(Event.class);
        this.streaming = EventReader.forMapper(mapper);
        this.streamingWriter = EventWriter.forMapper(mapper, writer);
    }

    /**
     * @param data the payload
     * @return the event
     * @throws UndecodableEventException when the payload is not an event's JSON (not
     * JSON, no event_type, fields not an object, a bad timestamp): retrying cannot fix
     * it, so it is parked at once
     */
    public Event decode(byte[] data) {
        try {
            Event event = streaming != null ? streaming.read(data) : reader.readValue(nested(mapper.readTree(data)));
            if (event == null) {
                throw new UndecodableEventException("the payload is JSON null, not an event", null);
            }
            return event;
        }
        catch (IOException e) {
            String detail = e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
            throw new UndecodableEventException("not an event: " + detail, e);
        }
    }

    /**
     * The flat shape made nested for data binding: without {@code fields}, the members
     * other than {@code event_type} and {@code timestamp} moved into it. Any other tree
     * is returned as it is.
     */
    static JsonNode nested(JsonNode tree) {
        if (!(tree instanceof ObjectNode object) || object.has(FIELDS)) {
            return tree;
        }
        ObjectNode fields = object.objectNode();
        ObjectNode event = object.objectNode();
        object.properties().forEach(member -> {
            boolean envelope = EVENT_TYPE.equals(member.getKey()) || TIMESTAMP.equals(member.getKey());
            (envelope ? event : fields).set(member.getKey(), member.getValue());
        });
        if (!fields.isEmpty()) {
            event.set(FIELDS, fields);
        }
        return event;
    }

    /**
     * The flat shape, for a route whose consumer is a Rust Varpulis node:
     * {@code {"event_type","timestamp",<fields at the top level>}}. A field named
     * {@code event_type}, {@code timestamp} or {@code fields} would be read back as
     * something else, so it is refused.
     * @param event an event
     * @return its JSON bytes (UTF-8), flat
     * @throws IllegalArgumentException when a field's name is one of the envelope's, or a
     * value cannot be written
     */
    public byte[] encodeFlat(Event event) {
        ObjectNode flat = mapper.createObjectNode();
        flat.put(EVENT_TYPE, event.eventType());
        if (event.timestamp() != null) {
            flat.set(TIMESTAMP, mapper.valueToTree(event.timestamp()));
        }
        event.fields().forEach((name, value) -> {
            if (EVENT_TYPE.equals(name) || TIMESTAMP.equals(name) || FIELDS.equals(name)) {
                throw new IllegalArgumentException("event " + event.eventType() + " cannot be written flat: its "
                        + "field " + name + " would read back as the event's own " + name + "; rename the field, "
                        + "or keep this route nested");
            }
            flat.set(name, mapper.valueToTree(value));
        });
        try {
            return mapper.writeValueAsBytes(flat);
        }
        catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "event " + event.eventType() + " cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * @param event an event
     * @return its JSON bytes (UTF-8)
     */
    public byte[] encode(Event event) {
        try {
            return streamingWriter != null ? streamingWriter.write(event) : writer.writeValueAsBytes(event);
        }
        catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "event " + event.eventType() + " cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
        catch (IOException e) {
            throw new IllegalArgumentException(
                    "event " + event.eventType() + " cannot be written as JSON: " + e.getMessage(), e);
        }
    }

    /**
     * @return the mapper, for writing other JSON the same way
     */
    public ObjectMapper mapper() {
        return mapper;
    }

}
