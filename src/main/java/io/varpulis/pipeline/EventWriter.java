package io.varpulis.pipeline;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;

import java.io.IOException;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a routed event (SPEC section 6) straight to Jackson's streaming
 * {@link JsonGenerator}: the same bytes as data binding writes for {@link Event} with the
 * codec's mapper, which {@link #forMapper} checks on a probe event holding every kind of
 * value before it lets this writer stand in (a mapper that writes otherwise, such as
 * dates as numbers, indented output or null map values left out, keeps data binding).
 * <p>
 * Values it knows ({@code String}, {@code Integer}, {@code Long}, {@code Double},
 * {@code Boolean}, {@code null}, maps with string keys, lists, nested events) it writes
 * itself; any other value is handed to the mapper.
 * <p>
 * Why: the bean and map serializers, their provider per call and {@link Instant}'s
 * formatter took almost a quarter of the main job's ingress thread (issue 34: writing
 * each batch of failures), and the feeder writes every line so.
 */
final class EventWriter {

    private final ObjectMapper mapper;

    private EventWriter(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * @param mapper the codec's mapper
     * @param dataBinding how the codec writes events otherwise (its
     * {@code writerFor(Event.class)})
     * @return a writer giving the same bytes as {@code dataBinding} on the probe event,
     * or {@code null} when it does not (the codec then keeps data binding)
     */
    static EventWriter forMapper(ObjectMapper mapper, ObjectWriter dataBinding) {
        EventWriter writer = new EventWriter(mapper);
        try {
            for (Event probe : probes()) {
                if (!Arrays.equals(writer.write(probe), dataBinding.writeValueAsBytes(probe))) {
                    return null;
                }
            }
            return writer;
        }
        catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Every kind of value this writer writes itself, with and without a timestamp,
     * nested.
     */
    private static List<Event> probes() {
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("null", null);
        nested.put("list", new ArrayList<>(Arrays.asList(1, "two", null, 3.5, List.of())));
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("text", "tab\t \"quoted\" \u00e9\u4e2d\ud83d\ude00 \u0001");
        fields.put("int", -7);
        fields.put("long", 1L << 40);
        fields.put("double", 0.1);
        fields.put("whole", 2.0);
        fields.put("true", true);
        fields.put("false", false);
        fields.put("empty", Map.of());
        fields.put("single", List.of("one"));
        fields.put("nested", nested);
        fields.put("event", new Event("Inner", Instant.ofEpochSecond(1_700_000_000L, 5_000), Map.of("a", 1)));
        return List.of(new Event("Probe", Instant.ofEpochSecond(1_764_000_000L), fields),
                new Event("Probe", Instant.ofEpochSecond(-1L, 123_000_000), Map.of()), Event.of("Probe", Map.of()),
                new Event("Probe", Instant.ofEpochSecond(253_402_300_800L), Map.of("big", BigInteger.TEN)));
    }

    /**
     * @param event an event
     * @return its JSON (UTF-8)
     * @throws IOException when a value the mapper writes cannot be written
     */
    byte[] write(Event event) throws IOException {
        try (ByteArrayBuilder bytes = new ByteArrayBuilder()) {
            // The mapper's generator: configured as data binding's (its write features,
            // e.g. surrogate pairs).
            try (JsonGenerator generator = mapper.createGenerator(bytes, JsonEncoding.UTF8)) {
                event(generator, event);
            }
            return bytes.toByteArray();
        }
    }

    private void event(JsonGenerator generator, Event event) throws IOException {
        generator.writeStartObject();
        generator.writeStringField("event_type", event.eventType());
        if (event.timestamp() != null) {
            generator.writeFieldName("timestamp");
            timestamp(generator, event.timestamp());
        }
        generator.writeFieldName("fields");
        value(generator, event.fields());
        generator.writeEndObject();
    }

    private void object(JsonGenerator generator, Map<?, ?> members) throws IOException {
        generator.writeStartObject();
        for (Map.Entry<?, ?> member : members.entrySet()) {
            generator.writeFieldName((String) member.getKey());
            value(generator, member.getValue());
        }
        generator.writeEndObject();
    }

    private void value(JsonGenerator generator, Object value) throws IOException {
        if (value == null) {
            generator.writeNull();
        }
        else if (value instanceof String text) {
            generator.writeString(text);
        }
        else if (value instanceof Integer number) {
            generator.writeNumber(number);
        }
        else if (value instanceof Long number) {
            generator.writeNumber(number);
        }
        else if (value instanceof Double number) {
            generator.writeNumber(number);
        }
        else if (value instanceof Boolean flag) {
            generator.writeBoolean(flag);
        }
        else if (value instanceof Map<?, ?> map && stringKeys(map)) {
            object(generator, map);
        }
        else if (value instanceof List<?> list) {
            generator.writeStartArray();
            for (Object element : list) {
                value(generator, element);
            }
            generator.writeEndArray();
        }
        else if (value instanceof Event event) {
            event(generator, event);
        }
        else {
            mapper.writeValue(generator, value);
        }
    }

    private static boolean stringKeys(Map<?, ?> map) {
        for (Object key : map.keySet()) {
            if (!(key instanceof String)) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@link java.time.format.DateTimeFormatter#ISO_INSTANT}'s text, by hand for whole
     * seconds of years 0-9999.
     */
    private static void timestamp(JsonGenerator generator, Instant instant) throws IOException {
        long seconds = instant.getEpochSecond();
        if (instant.getNano() != 0 || seconds < -62_167_219_200L || seconds >= 253_402_300_800L) {
            generator.writeString(instant.toString());
            return;
        }
        char[] text = new char[20];
        LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, 86_400L));
        int secondOfDay = (int) Math.floorMod(seconds, 86_400L);
        digits(text, 0, date.getYear(), 4);
        text[4] = '-';
        digits(text, 5, date.getMonthValue(), 2);
        text[7] = '-';
        digits(text, 8, date.getDayOfMonth(), 2);
        text[10] = 'T';
        digits(text, 11, secondOfDay / 3600, 2);
        text[13] = ':';
        digits(text, 14, secondOfDay / 60 % 60, 2);
        text[16] = ':';
        digits(text, 17, secondOfDay % 60, 2);
        text[19] = 'Z';
        generator.writeString(text, 0, text.length);
    }

    private static void digits(char[] text, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            text[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }

}
