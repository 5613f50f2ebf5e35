package io.varpulis.pipeline;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The streaming reader gives what data binding gave, value for value and type for type,
 * on generated events and on the payloads the ingress must park.
 */
class EventReaderTest {

    private final ObjectMapper mapper = new EventCodec().mapper();

    private final EventReader streaming = EventReader.forMapper(mapper);

    private final ObjectReader binding = mapper.readerFor(Event.class);

    @Test
    void generatedEventsReadTheSameAsWithDataBinding() throws Exception {
        Random random = new Random(14);
        for (int i = 0; i < 5_000; i++) {
            String json = event(random);
            byte[] data = json.getBytes(StandardCharsets.UTF_8);

            Event expected = bound(data);
            Event actual = streaming.read(data);

            assertThat(actual).as(json).isEqualTo(expected);
            assertSameTypes(actual.fields(), expected.fields(), json);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "{\"event_type\": \"A\", \"timestamp\": \"2026-11-30T13:00:00+01:00\"}",
            "{\"event_type\": \"A\", \"timestamp\": \"2026-11-30t12:00:00z\"}",
            "{\"event_type\": \"A\", \"timestamp\": 1764504000}",
            "{\"event_type\": \"A\", \"timestamp\": 1764504000.5}",
            "{\"event_type\": \"A\", \"timestamp\": null, \"fields\": null}", "{\"event_type\": 7, \"fields\": {}}",
            "{\"event_type\": true}",
            "{\"timestamp\": \"2026-11-30T12:00:00Z\", \"fields\": {\"a\": [1, [2, {\"b\": null}]]}, \"event_type\": \"A\"}",
            "{\"event_type\": \"A\", \"fields\": {\"a\": 1, \"a\": \"two\"}}",
            "{\"event_type\": \"A\", \"event_type\": \"B\", \"fields\": {}}",
            "{\"fields\": {\"a\": 1}, \"fields\": {\"b\": 2}, \"event_type\": \"A\"}",
            "{\"event_type\": \"A\", \"extra\": {\"deep\": [1, 2, {\"x\": []}]}, \"more\": [[]]}",
            "{\"event_type\": \"A\", \"fields\": {\"big\": 123456789012345678901234567890, \"f\": 1e400, \"n\": -0.0}}",
            "{\"event_type\": \"A\", \"fields\": {\"s\": \"\\u00e9\\ud83d\\ude00\\n\\\"\"}}" })
    void edgeCasesReadTheSameAsWithDataBinding(String json) throws Exception {
        byte[] data = json.getBytes(StandardCharsets.UTF_8);

        Event expected = bound(data);
        Event actual = streaming.read(data);

        assertThat(actual).isEqualTo(expected);
        assertSameTypes(actual.fields(), expected.fields(), json);
    }

    @ParameterizedTest
    @ValueSource(strings = { "not json at all", "{}", "{\"event_type\": \"\"}", "{\"event_type\": \"   \"}",
            "{\"fields\": {\"a\": 1}}", "[1,2]", "\"SshAuthFailure\"", "42", "",
            "{\"event_type\": \"A\", \"fields\": [1, 2]}", "{\"event_type\": \"A\", \"fields\": \"x\"}",
            "{\"event_type\": [\"A\"]}", "{\"event_type\": {\"a\": 1}}",
            "{\"event_type\": \"A\", \"timestamp\": \"yesterday\"}", "{\"event_type\": \"A\", \"timestamp\": [1]}",
            "{\"event_type\": \"A\"} trailing", "{\"event_type\": \"A\"} {}", "{\"event_type\": \"A\"",
            "{\"event_type\": \"A\", \"fields\": {\"a\": [1, 2", "{\"event_type\": \"A\", \"fields\": {\"a\": }}",
            "{\"event_type\": \"A\", \"timestamp\": null, \"fields\": {}, \"event_type\": \"B\"}",
            "{\"fields\": {}, \"event_type\": \"A\", \"timestamp\": null, \"fields\": {\"a\": 1}}" })
    void whatDataBindingRefusesIsRefused(String json) {
        byte[] data = json.getBytes(StandardCharsets.UTF_8);
        EventCodec codec = new EventCodec();

        assertThatThrownBy(() -> binding.readValue(data)).as("data binding refuses it").isNotNull();
        assertThatThrownBy(() -> codec.decode(data)).isInstanceOf(UndecodableEventException.class)
            .hasMessageContaining("not an event");
    }

    @Test
    void mapperThatReadsNumbersOtherwiseKeepsDataBinding() {
        ObjectMapper longs = new EventCodec().mapper().copy().enable(DeserializationFeature.USE_LONG_FOR_INTS);

        assertThat(EventReader.forMapper(longs)).isNull();
        assertThat(EventReader
            .forMapper(new EventCodec().mapper().copy().disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)))
            .isNull();
        assertThat(new EventCodec(longs)
            .decode("{\"event_type\": \"A\", \"fields\": {\"n\": 1}}".getBytes(StandardCharsets.UTF_8))
            .fields()
            .get("n")).isEqualTo(1L);
    }

    @Test
    void decodedFieldsAreReadOnly() throws Exception {
        Event event = streaming
            .read("{\"event_type\": \"A\", \"fields\": {\"n\": 1}}".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> event.fields().put("m", 2)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(event.fields()).isEqualTo(Map.of("n", 1));
    }

    /**
     * Data binding of the event, the flat shape (no fields, data at the top level) made
     * nested first.
     */
    private Event bound(byte[] data) throws Exception {
        return binding.readValue(EventCodec.nested(mapper.readTree(data)));
    }

    private static void assertSameTypes(Object actual, Object expected, String json) {
        if (expected == null) {
            assertThat(actual).as(json).isNull();
            return;
        }
        assertThat(actual).as(json).isNotNull();
        if (expected instanceof Map<?, ?> map) {
            assertThat(actual).as(json).isInstanceOf(Map.class);
            assertThat(new ArrayList<Object>(((Map<?, ?>) actual).keySet())).as(json)
                .isEqualTo(new ArrayList<Object>(map.keySet()));
            map.forEach((key, value) -> assertSameTypes(((Map<?, ?>) actual).get(key), value, json));
        }
        else if (expected instanceof List<?> list) {
            assertThat(actual).as(json).isInstanceOf(List.class);
            for (int i = 0; i < list.size(); i++) {
                assertSameTypes(((List<?>) actual).get(i), list.get(i), json);
            }
        }
        else {
            assertThat(actual.getClass()).as(json).isEqualTo(expected.getClass());
        }
    }

    private static String event(Random random) {
        Map<String, String> members = new LinkedHashMap<>();
        members.put("event_type",
                random.nextInt(10) == 0 ? String.valueOf(random.nextInt(100)) : quote("T" + text(random)));
        switch (random.nextInt(5)) {
            case 0 -> {
            }
            case 1 -> members.put("timestamp", "null");
            case 2 -> members.put("timestamp",
                    quote("2026-" + two(random, 12) + "-" + two(random, 28) + "T" + two(random, 23) + ":"
                            + two(random, 59) + ":" + two(random, 59)
                            + (random.nextBoolean() ? "." + (1 + random.nextInt(999_999_999)) : "") + "Z"));
            case 3 -> members.put("timestamp", quote("2026-11-30T12:00:00+0" + random.nextInt(10) + ":00"));
            default -> members.put("timestamp", String.valueOf(random.nextInt(2_000_000_000)));
        }
        if (random.nextInt(8) != 0) {
            members.put("fields", object(random, 0));
        }
        if (random.nextInt(4) == 0) {
            members.put("unknown_" + random.nextInt(3), value(random, 1));
        }
        List<String> order = new ArrayList<>(members.keySet());
        java.util.Collections.shuffle(order, random);
        StringBuilder json = new StringBuilder("{");
        for (String key : order) {
            json.append(json.length() > 1 ? ", " : "").append(quote(key)).append(": ").append(members.get(key));
        }
        return json.append('}').toString();
    }

    private static String object(Random random, int depth) {
        StringBuilder json = new StringBuilder("{");
        int size = random.nextInt(depth == 0 ? 8 : 4);
        for (int i = 0; i < size; i++) {
            json.append(i > 0 ? "," : "")
                .append(quote("k" + random.nextInt(6)))
                .append(':')
                .append(value(random, depth + 1));
        }
        return json.append('}').toString();
    }

    private static String value(Random random, int depth) {
        int kind = random.nextInt(depth > 3 ? 7 : 9);
        return switch (kind) {
            case 0 -> quote(text(random));
            case 1 -> String.valueOf(random.nextInt());
            case 2 -> String.valueOf(random.nextLong());
            case 3 -> new BigInteger(100, random).toString();
            case 4 -> String.valueOf(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20));
            case 5 -> random.nextBoolean() ? "true" : "false";
            case 6 -> "null";
            case 7 -> object(random, depth);
            default -> {
                StringBuilder json = new StringBuilder("[");
                int size = random.nextInt(4);
                for (int i = 0; i < size; i++) {
                    json.append(i > 0 ? "," : "").append(value(random, depth + 1));
                }
                yield json.append(']').toString();
            }
        };
    }

    private static String text(Random random) {
        String[] pieces = { "a", "Z", "9", " ", "\\n", "\\\"", "\\u00e9", "é", "😀", "\\\\", "/", "src_ip" };
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(6);
        for (int i = 0; i < length; i++) {
            text.append(pieces[random.nextInt(pieces.length)]);
        }
        return text.toString();
    }

    private static String two(Random random, int max) {
        int value = 1 + random.nextInt(max);
        return value < 10 ? "0" + value : String.valueOf(value);
    }

    private static String quote(String text) {
        return "\"" + text + "\"";
    }

}
