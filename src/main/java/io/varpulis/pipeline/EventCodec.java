package io.varpulis.pipeline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import java.io.IOException;

/**
 * Reads and writes routed events as the JSON of SPEC section 6, with Jackson.
 */
public class EventCodec {

    private final ObjectMapper mapper;
    // Resolved once: mapper.readValue(data, Event.class) looks the type and its deserializer up on every call.
    private final ObjectReader reader;
    private final ObjectWriter writer;
    // The streaming reader, or null when the mapper reads untyped values differently (then data binding).
    private final EventReader streaming;

    /** Creates a codec with its own mapper: RFC 3339 timestamps, unknown fields ignored (newer publishers). */
    public EventCodec() {
        this(JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build());
    }

    /**
     * @param mapper the mapper to use (it must read and write {@link java.time.Instant} as RFC 3339)
     */
    public EventCodec(ObjectMapper mapper) {
        this.mapper = mapper;
        this.reader = mapper.readerFor(Event.class);
        this.writer = mapper.writerFor(Event.class);
        this.streaming = EventReader.forMapper(mapper);
    }

    /**
     * @param data the payload
     * @return the event
     * @throws UndecodableEventException when the payload is not an event's JSON (not JSON, no event_type, fields not
     *                                   an object, a bad timestamp): retrying cannot fix it, so it is parked at once
     */
    public Event decode(byte[] data) {
        try {
            Event event = streaming != null ? streaming.read(data) : reader.readValue(data);
            if (event == null) {
                throw new UndecodableEventException("the payload is JSON null, not an event", null);
            }
            return event;
        } catch (IOException e) {
            String detail = e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
            throw new UndecodableEventException("not an event: " + detail, e);
        }
    }

    /**
     * @param event an event
     * @return its JSON bytes (UTF-8)
     */
    public byte[] encode(Event event) {
        try {
            return writer.writeValueAsBytes(event);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("event " + event.eventType() + " cannot be written as JSON: "
                    + e.getOriginalMessage(), e);
        }
    }

    /**
     * @return the mapper, for writing other JSON the same way
     */
    public ObjectMapper mapper() {
        return mapper;
    }
}
