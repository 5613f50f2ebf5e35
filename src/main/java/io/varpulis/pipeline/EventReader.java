package io.varpulis.pipeline;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a routed event (SPEC section 6) straight off Jackson's streaming
 * {@link JsonParser}, to the same {@link Event} that data binding gives: the same Java
 * types for field values ({@link LinkedHashMap}, {@link ArrayList}, {@code String},
 * {@code Integer}/{@code Long}/{@code BigInteger}, {@code Double}, {@code Boolean},
 * {@code null}), the last of duplicate keys kept inside {@code fields}, a repeat of
 * {@code event_type}, {@code timestamp} or {@code fields} refused once all three were
 * given (as data binding's record creator refuses it), unknown properties skipped,
 * trailing content refused, and timestamps that are not
 * {@code yyyy-MM-ddTHH:mm:ss[.fraction]Z} read by the mapper's own {@link Instant}
 * deserializer.
 * <p>
 * The flat shape (SPEC section 17): an event without {@code fields} whose other top-level
 * members are its data, as Varpulis's own NATS connector writes it
 * ({@code {"event_type","timestamp",<fields...>}}), is read with those members as its
 * fields, never as an event with none. With {@code fields} present, other top-level
 * members are skipped as before (a newer publisher's additions).
 * <p>
 * Why: data binding's record creator, its deserialization context per call and the second
 * copy of the fields map took most of a route ingress's decode (issue 14, item 3: the
 * routed hop at 0.95 of raw jnats). The codec falls back to data binding when the mapper
 * enables a feature that changes how untyped values are read.
 */
final class EventReader {

    /**
     * Data-binding features under which untyped values read differently from what this
     * reader gives.
     */
    private static final DeserializationFeature[] UNTYPED_FEATURES = {
            DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS, DeserializationFeature.USE_BIG_INTEGER_FOR_INTS,
            DeserializationFeature.USE_LONG_FOR_INTS, DeserializationFeature.USE_JAVA_ARRAY_FOR_JSON_ARRAY,
            DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY, DeserializationFeature.UNWRAP_SINGLE_VALUE_ARRAYS,
            DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
            DeserializationFeature.ACCEPT_EMPTY_ARRAY_AS_NULL_OBJECT,
            DeserializationFeature.ACCEPT_EMPTY_STRING_AS_NULL_OBJECT, DeserializationFeature.UNWRAP_ROOT_VALUE };

    /** The bit of {@code fields} in the members seen. */
    private static final int FIELDS = 4;

    /** {@code event_type}, {@code timestamp} and {@code fields} all given. */
    private static final int ALL_THREE = 7;

    private final JsonFactory factory;

    private final ObjectReader instants;

    private EventReader(ObjectMapper mapper) {
        this.factory = mapper.getFactory();
        // Positioned on the timestamp's token inside the event: the rest of the event
        // follows, it is not trailing.
        this.instants = mapper.readerFor(Instant.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /**
     * @param mapper the codec's mapper
     * @return a reader for it, or {@code null} when the mapper reads events otherwise
     * (untyped values, empty values, a root wrapper, trailing content allowed): data
     * binding then
     */
    static EventReader forMapper(ObjectMapper mapper) {
        DeserializationConfig config = mapper.getDeserializationConfig();
        if (!config.isEnabled(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)) {
            return null;
        }
        for (DeserializationFeature feature : UNTYPED_FEATURES) {
            if (config.isEnabled(feature)) {
                return null;
            }
        }
        return new EventReader(mapper);
    }

    /**
     * @param data a payload
     * @return the event, never {@code null}
     * @throws UndecodableEventException when it is not an event's JSON object
     * @throws IOException when it is not JSON (the codec says so)
     */
    Event read(byte[] data) throws IOException {
        try (JsonParser parser = factory.createParser(data)) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                throw new UndecodableEventException("not an event: the payload is empty", null);
            }
            if (token == JsonToken.VALUE_NULL) {
                throw new UndecodableEventException("the payload is JSON null, not an event", null);
            }
            if (token != JsonToken.START_OBJECT) {
                throw new UndecodableEventException(
                        "not an event: the payload is a JSON " + kind(token) + ", not an object", null);
            }
            String eventType = null;
            Instant timestamp = null;
            Map<String, Object> fields = null;
            Map<String, Object> topLevel = null;
            int seen = 0;
            for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
                JsonToken value = parser.nextToken();
                int bit = switch (name) {
                    case "event_type" -> 1;
                    case "timestamp" -> 2;
                    case "fields" -> FIELDS;
                    default -> 0;
                };
                if (bit != 0 && seen == ALL_THREE) {
                    throw new UndecodableEventException("not an event: " + name + " appears twice", null);
                }
                seen |= bit;
                switch (name) {
                    case "event_type" -> eventType = text(parser, value);
                    case "timestamp" -> timestamp = value == JsonToken.VALUE_NULL ? null : timestamp(parser, value);
                    case "fields" -> fields = fields(parser, value);
                    default -> {
                        if ((seen & FIELDS) != 0) {
                            parser.skipChildren();
                        }
                        else {
                            topLevel = topLevel == null ? new LinkedHashMap<>() : topLevel;
                            topLevel.put(name, value(parser, value));
                        }
                    }
                }
            }
            if ((seen & FIELDS) == 0 && topLevel != null) {
                fields = topLevel;
            }
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                throw new UndecodableEventException(
                        "not an event: content after the event's JSON object (" + kind(trailing) + ")", null);
            }
            try {
                return Event.decoded(eventType, timestamp, fields);
            }
            catch (IllegalArgumentException e) {
                throw new UndecodableEventException("not an event: " + e.getMessage(), e);
            }
        }
    }

    /**
     * {@code event_type}: a string, or a scalar read as its text (as data binding coerces
     * it).
     */
    private static String text(JsonParser parser, JsonToken token) {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (!token.isScalarValue()) {
            throw new UndecodableEventException("not an event: event_type is a JSON " + kind(token) + ", not a string",
                    null);
        }
        try {
            return parser.getText();
        }
        catch (IOException e) {
            throw new UndecodableEventException("not an event: " + e.getMessage(), e);
        }
    }

    private Instant timestamp(JsonParser parser, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_STRING) {
            Instant fast = EventTimestampDeserializer.parseUtc(parser.getText());
            if (fast != null) {
                return fast;
            }
        }
        return instants.readValue(parser);
    }

    private static Map<String, Object> fields(JsonParser parser, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token != JsonToken.START_OBJECT) {
            throw new UndecodableEventException("not an event: fields is a JSON " + kind(token)
                    + ", not an object (in the nested shape fields holds the data; in the flat shape the data sits "
                    + "at the top level and no member may be called fields)", null);
        }
        return object(parser);
    }

    /** An object's members, the parser on its START_OBJECT; returns on its END_OBJECT. */
    private static Map<String, Object> object(JsonParser parser) throws IOException {
        Map<String, Object> members = new LinkedHashMap<>();
        for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
            members.put(name, value(parser, parser.nextToken()));
        }
        return members;
    }

    private static Object value(JsonParser parser, JsonToken token) throws IOException {
        if (token == null) {
            throw new UndecodableEventException("not an event: the payload ends inside fields", null);
        }
        return switch (token) {
            case VALUE_STRING -> parser.getText();
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> parser.getNumberValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            case START_OBJECT -> object(parser);
            case START_ARRAY -> array(parser);
            case VALUE_EMBEDDED_OBJECT -> parser.getEmbeddedObject();
            default -> throw new UndecodableEventException("not an event: unexpected " + token + " in fields", null);
        };
    }

    private static List<Object> array(JsonParser parser) throws IOException {
        List<Object> elements = new ArrayList<>();
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            elements.add(value(parser, token));
        }
        return elements;
    }

    private static String kind(JsonToken token) {
        return switch (token) {
            case START_ARRAY -> "array";
            case START_OBJECT -> "object";
            case VALUE_STRING -> "string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
            case VALUE_TRUE, VALUE_FALSE -> "boolean";
            case VALUE_NULL -> "null";
            default -> token.name();
        };
    }

}
