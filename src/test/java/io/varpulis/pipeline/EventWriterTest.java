package io.varpulis.pipeline;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The streaming writer gives data binding's bytes, on generated events, on the main job's
 * own shapes and on timestamps across the years it formats by hand; a mapper that writes
 * otherwise keeps data binding.
 */
class EventWriterTest {

    private final ObjectMapper mapper = new EventCodec().mapper();

    private final ObjectWriter binding = mapper.writerFor(Event.class);

    private final EventWriter streaming = EventWriter.forMapper(mapper, binding);

    @Test
    void generatedEventsWriteTheSameBytesAsDataBinding() throws Exception {
        Random random = new Random(34);
        for (int i = 0; i < 5_000; i++) {
            Event event = new Event("Type" + random.nextInt(3), random.nextBoolean() ? null : instant(random),
                    fields(random, 0));

            assertThat(new String(streaming.write(event), StandardCharsets.UTF_8))
                .isEqualTo(new String(binding.writeValueAsBytes(event), StandardCharsets.UTF_8));
        }
    }

    @Test
    void batchesOfDecodedEventsWriteTheSameBytesAsDataBinding() throws Exception {
        EventCodec codec = new EventCodec();
        Event line = codec.decode(("{\"event_type\":\"SshLogLine\",\"timestamp\":\"2026-12-10T06:55:46Z\","
                + "\"fields\":{\"line\":\"Dec 10 06:55:46 LabSZ sshd[24200]: x\",\"line_number\":1,\"year\":2026}}")
            .getBytes(StandardCharsets.UTF_8));
        Event batch = EventBatch.of("SshLogLines", List.of(line, line, Event.of("Other", Map.of("n", 1.5))));

        assertThat(streaming.write(batch)).isEqualTo(binding.writeValueAsBytes(batch));
        assertThat(codec.decode(codec.encode(batch))).isEqualTo(codec.decode(binding.writeValueAsBytes(batch)));
    }

    @Test
    void timestampsWriteAsIsoInstantAcrossTheYears() throws Exception {
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            long seconds = random.nextLong(-62_167_219_200L - 86_400L * 400, 253_402_300_800L + 86_400L * 400);
            Event event = new Event("T",
                    Instant.ofEpochSecond(seconds, i % 10 == 0 ? random.nextInt(1_000_000_000) : 0), Map.of());

            assertThat(streaming.write(event)).as(event.timestamp().toString())
                .isEqualTo(binding.writeValueAsBytes(event));
        }
    }

    @Test
    void mapperThatWritesOtherwiseKeepsDataBindingOrItsBytes() throws Exception {
        ObjectMapper numbers = new EventCodec().mapper().copy().enable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        ObjectMapper indented = new EventCodec().mapper().copy().enable(SerializationFeature.INDENT_OUTPUT);
        Event event = new Event("A", Instant.ofEpochSecond(5), Map.of("n", List.of(1, Map.of("m", "x"))));

        assertThat(streaming).isNotNull();
        assertThat(EventWriter.forMapper(numbers, numbers.writerFor(Event.class))).isNull();
        ObjectMapper unwrapped = new EventCodec().mapper()
            .copy()
            .enable(SerializationFeature.WRITE_SINGLE_ELEM_ARRAYS_UNWRAPPED);
        assertThat(EventWriter.forMapper(unwrapped, unwrapped.writerFor(Event.class))).as("one-element lists unwrapped")
            .isNull();
        assertThat(new EventCodec(indented).encode(event))
            .isEqualTo(indented.writerFor(Event.class).writeValueAsBytes(event));
        assertThat(new String(new EventCodec(numbers).encode(new Event("A", Instant.ofEpochSecond(5), Map.of())),
                StandardCharsets.UTF_8))
            .contains("\"timestamp\":5");
    }

    private static Instant instant(Random random) {
        return Instant.ofEpochSecond(random.nextLong(0, 4_102_444_800L),
                random.nextInt(4) == 0 ? random.nextInt(1_000_000_000) : 0);
    }

    private static Map<String, Object> fields(Random random, int depth) {
        Map<String, Object> fields = new LinkedHashMap<>();
        int count = random.nextInt(6);
        for (int i = 0; i < count; i++) {
            fields.put(random.nextInt(5) == 0 ? "k\u00e9y\"" + i : "k" + i, value(random, depth));
        }
        return fields;
    }

    private static Object value(Random random, int depth) {
        return switch (random.nextInt(depth > 2 ? 8 : 11)) {
            case 0 -> null;
            case 1 -> "text \t\u2028\ud83d\ude00 " + random.nextInt();
            case 2 -> random.nextInt();
            case 3 -> random.nextLong();
            case 4 -> random.nextDouble() * 1e6;
            case 5 -> random.nextBoolean();
            case 6 -> new BigDecimal("12.50");
            case 7 -> (float) random.nextDouble();
            case 8 -> fields(random, depth + 1);
            case 9 -> {
                List<Object> list = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    list.add(value(random, depth + 1));
                }
                yield list;
            }
            default -> new Event("Nested", random.nextBoolean() ? null : instant(random), fields(random, depth + 1));
        };
    }

}
