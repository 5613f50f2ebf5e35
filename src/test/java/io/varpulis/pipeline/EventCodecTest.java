package io.varpulis.pipeline;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The routed event JSON of SPEC section 6, and the payloads the ingress must park at
 * once.
 */
class EventCodecTest {

    private static final String SPEC_EXAMPLE = "{\"event_type\": \"SshAuthFailure\", \"timestamp\": "
            + "\"2026-11-30T12:00:00Z\", \"fields\": {\"src_ip\": \"10.0.0.9\", \"user\": \"root\"}}";

    private final EventCodec codec = new EventCodec();

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void specExampleDecodesToTheEvent() {
        Event event = codec.decode(utf8(SPEC_EXAMPLE));

        assertThat(event.eventType()).isEqualTo("SshAuthFailure");
        assertThat(event.timestamp()).isEqualTo(Instant.parse("2026-11-30T12:00:00Z"));
        assertThat(event.fields()).containsExactly(Map.entry("src_ip", "10.0.0.9"), Map.entry("user", "root"));
    }

    @Test
    void specExampleRoundTripsToTheSameJson() throws Exception {
        byte[] encoded = codec.encode(codec.decode(utf8(SPEC_EXAMPLE)));

        assertThat(json.readTree(encoded)).isEqualTo(json.readTree(SPEC_EXAMPLE));
        assertThat(new String(encoded, StandardCharsets.UTF_8)).contains("\"timestamp\":\"2026-11-30T12:00:00Z\"");
    }

    @Test
    void eventRoundTripsThroughItsJson() {
        Event event = new Event("BruteForceSuspected", Instant.parse("2026-11-30T12:05:00Z"),
                Map.of("src_ip", "10.0.0.9", "failures", 5, "nested", Map.of("ok", true), "list", List.of("a", "b")));

        assertThat(codec.decode(codec.encode(event))).isEqualTo(event);
    }

    @Test
    void timestampIsOptionalAndOmittedWhenAbsent() throws Exception {
        Event event = codec.decode(utf8("{\"event_type\": \"Tick\", \"fields\": {\"n\": 1}}"));

        assertThat(event.timestamp()).isNull();
        JsonNode written = json.readTree(codec.encode(event));
        assertThat(written.has("timestamp")).isFalse();
        assertThat(written).isEqualTo(json.readTree("{\"event_type\": \"Tick\", \"fields\": {\"n\": 1}}"));
    }

    @Test
    void timestampWithAnOffsetIsReadAsTheSameInstant() {
        Event event = codec.decode(utf8("{\"event_type\": \"A\", \"timestamp\": \"2026-11-30T13:00:00+01:00\"}"));

        assertThat(event.timestamp()).isEqualTo(Instant.parse("2026-11-30T12:00:00Z"));
    }

    @Test
    void missingFieldsWithNothingElseAtTheTopLevelAreAnEmptyMap() {
        Event event = codec.decode(utf8("{\"event_type\": \"A\", \"timestamp\": \"2026-11-30T12:00:00Z\"}"));

        assertThat(event.fields()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = { "not json at all", "{}", "{\"event_type\": \"\"}", "{\"event_type\": \"   \"}",
            "{\"fields\": {\"a\": 1}}", "[1,2]", "null", "\"SshAuthFailure\"", "42", "",
            "{\"event_type\": \"A\", \"fields\": [1, 2]}", "{\"event_type\": \"A\", \"timestamp\": \"yesterday\"}",
            "{\"event_type\": \"A\"} trailing", "{\"event_type\": \"A\"" })
    void payloadThatIsNotAnEventIsUndecodable(String payload) {
        assertThatThrownBy(() -> codec.decode(utf8(payload))).isInstanceOf(UndecodableEventException.class)
            .hasMessageContaining("not an event");
    }

    @Test
    void garbageBytesAreUndecodable() {
        byte[] garbage = { 0x00, (byte) 0xff, 0x13, 0x37, (byte) 0x80, 0x7f };

        assertThatThrownBy(() -> codec.decode(garbage)).isInstanceOf(UndecodableEventException.class);
    }

    @Test
    void invalidUtf8IsUndecodable() {
        byte[] prefix = utf8("{\"event_type\": \"A");
        byte[] payload = new byte[prefix.length + 3];
        System.arraycopy(prefix, 0, payload, 0, prefix.length);
        payload[prefix.length] = (byte) 0xc3; // a lead byte followed by no continuation
                                              // byte
        payload[prefix.length + 1] = '"';
        payload[prefix.length + 2] = '}';

        assertThatThrownBy(() -> codec.decode(payload)).isInstanceOf(UndecodableEventException.class);
    }

    /**
     * Issue 26: Varpulis's NATS connector writes events flat; their data must never be
     * dropped in silence.
     */
    @Test
    void theFlatShapeOfTheRustConnectorIsReadIntoFields() {
        String flat = "{\"event_type\": \"SensorReading\", \"timestamp\": \"2026-11-30T12:00:00Z\", "
                + "\"temperature\": 150, \"sensor\": \"s-1\", \"tags\": [\"a\"]}";

        Event event = codec.decode(utf8(flat));
        Event bound = new EventCodec(codec.mapper().copy().enable(DeserializationFeature.USE_LONG_FOR_INTS))
            .decode(utf8(flat));

        assertThat(event.eventType()).isEqualTo("SensorReading");
        assertThat(event.timestamp()).isEqualTo(Instant.parse("2026-11-30T12:00:00Z"));
        assertThat(event.fields()).containsExactly(Map.entry("temperature", 150), Map.entry("sensor", "s-1"),
                Map.entry("tags", List.of("a")));
        assertThat(bound.fields()).containsEntry("temperature", 150L).containsEntry("sensor", "s-1");
    }

    @Test
    void theNestedShapeWinsWhenFieldsIsThereAndOtherTopLevelMembersAreSkipped() {
        Event event = codec.decode(utf8("{\"event_type\": \"A\", \"extra\": 1, \"fields\": {\"n\": 2}}"));

        assertThat(event.fields()).containsExactly(Map.entry("n", 2));
    }

    @Test
    void aFlatEventWithAMemberCalledFieldsIsParkedWithAReasonNamingTheShapes() {
        assertThatThrownBy(
                () -> codec.decode(utf8("{\"event_type\": \"A\", \"temperature\": 1, " + "\"fields\": \"x\"}")))
            .isInstanceOf(UndecodableEventException.class)
            .hasMessageContaining("in the flat shape the data sits at the top level");
    }

    @Test
    void encodeFlatWritesTheFieldsAtTheTopLevelAndReadsBackAsTheSameEvent() throws Exception {
        Event event = new Event("Alert", Instant.parse("2026-11-30T12:05:00Z"),
                Map.of("src_ip", "10.0.0.9", "failures", 5));

        byte[] flat = codec.encodeFlat(event);

        assertThat(json.readTree(flat)).isEqualTo(json.readTree("{\"event_type\": \"Alert\", \"timestamp\": "
                + "\"2026-11-30T12:05:00Z\", \"src_ip\": \"10.0.0.9\", \"failures\": 5}"));
        assertThat(codec.decode(flat)).isEqualTo(event);
    }

    @Test
    void encodeFlatRefusesAFieldThatWouldReadBackAsTheEnvelope() {
        Event event = Event.of("Alert", Map.of("timestamp", "yesterday"));

        assertThatThrownBy(() -> codec.encodeFlat(event)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("field timestamp would read back as the event's own timestamp");
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

}
