package io.varpulis.pipeline;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fast path of {@link EventTimestampDeserializer} reads what the general Instant
 * deserializer reads, and everything it does not take is left to that deserializer, with
 * the same result or the same refusal.
 */
class EventTimestampDeserializerTest {

    private static final ObjectMapper REFERENCE = JsonMapper.builder().addModule(new JavaTimeModule()).build();

    private final EventCodec codec = new EventCodec();

    @ParameterizedTest
    @ValueSource(strings = { "2026-11-30T12:00:00Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59Z",
            "2026-11-30T12:00:00.1Z", "2026-11-30T12:00:00.123Z", "2026-11-30T12:00:00.000123Z",
            "2026-11-30T12:00:00.123456789Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z" })
    void theFastPathReadsWhatTheGeneralParserReads(String text) throws Exception {
        assertThat(EventTimestampDeserializer.parseUtc(text))
            .isEqualTo(REFERENCE.readValue("\"" + text + "\"", Instant.class));
    }

    @ParameterizedTest
    @ValueSource(strings = { "2026-11-30T12:00:00+02:00", "2026-11-30t12:00:00z", "2026-02-30T00:00:00Z",
            "2026-11-30T24:00:00Z", "2026-11-30T23:59:60Z", "2026-11-30T12:00:00.Z", "2026-11-30T12:00:00.1234567891Z",
            "2026-11-30 12:00:00Z", "2026-1a-30T12:00:00Z", "+2026-11-30T12:00:00Z", "" })
    void anythingElseIsLeftToTheGeneralParser(String text) {
        assertThat(EventTimestampDeserializer.parseUtc(text)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = { "\"2026-11-30T12:00:00Z\"", "\"2026-11-30T14:00:00+02:00\"", "\"2026-11-30T23:59:60Z\"",
            "\"2026-02-30T00:00:00Z\"", "\"yesterday\"", "1796886600", "1796886600.5", "null" })
    void decodingAnEventGivesWhatTheGeneralParserGives(String timestampJson) throws Exception {
        byte[] json = ("{\"event_type\":\"SshAuthFailure\",\"timestamp\":" + timestampJson + ",\"fields\":{}}")
            .getBytes(StandardCharsets.UTF_8);
        Instant expected;
        try {
            expected = REFERENCE.readValue(timestampJson, Instant.class);
        }
        catch (Exception refused) {
            assertThatThrownBy(() -> codec.decode(json)).isInstanceOf(UndecodableEventException.class);
            return;
        }
        assertThat(codec.decode(json).timestamp()).isEqualTo(expected);
    }

}
