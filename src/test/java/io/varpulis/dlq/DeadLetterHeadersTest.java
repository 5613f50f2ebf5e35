package io.varpulis.dlq;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.impl.Headers;
import org.junit.jupiter.api.Test;

import java.util.Base64;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The raw form's headers (SPEC section 4): every envelope field round-trips through
 * header values, whatever their characters, and the fields that matter most are kept
 * first when the room under max_payload is short.
 */
class DeadLetterHeadersTest {

    private static final DeathEnvelope ENVELOPE = new DeathEnvelope("varpulis.cluster.pipeline.g._external.detect",
            "detect", 5, 1796886600, "ünïcode\r\nsecond line 100% wrong", null, null, "max_deliver",
            "java.lang.IllegalStateException", "VARPULIS_ROUTING", 42L, "g-1", 1796886590L);

    @Test
    void everyFieldRoundTripsThroughHeaderValues_andTheBodyIsThePayload() {
        Map<String, String> fields = DeadLetterHeaders.of(ENVELOPE, 4096);
        Headers headers = new Headers();
        fields.forEach(headers::add);
        byte[] binary = { (byte) 0xff, 0x00, 0x41 };

        DeathEnvelope read = DeadLetterHeaders.envelope(headers, binary);

        assertThat(DeadLetterHeaders.isRawForm(headers)).isTrue();
        assertThat(read).isEqualTo(new DeathEnvelope(ENVELOPE.originalSubject(), "detect", 5, 1796886600,
                ENVELOPE.lastError(), null, Base64.getEncoder().encodeToString(binary), "max_deliver",
                ENVELOPE.errorClass(), "VARPULIS_ROUTING", 42L, "g-1", 1796886590L));
        assertThat(read.originalPayload()).isEqualTo(binary);
        assertThat(fields.values()).allSatisfy(v -> assertThat(v).matches("[\\x20-\\x7e]*"));
    }

    @Test
    void aTracedParkKeepsItsTraceId_andTheJsonEnvelopeHasItOnlyWhenTraced() throws Exception {
        DeathEnvelope traced = new DeathEnvelope(ENVELOPE.originalSubject(), "detect", 5, 1796886600, "boom", "{}",
                null, "max_deliver", null, "VARPULIS_ROUTING", 42L, "g-1", 1796886590L, null,
                "4bf92f3577b34da6a3ce929d0e0e4736", "route_detect__varpulis_cluster_pipeline_g__external_detect");
        Map<String, String> fields = DeadLetterHeaders.of(traced, 4096);
        Headers headers = new Headers();
        fields.forEach(headers::add);

        assertThat(fields).containsEntry("Varpulis-Dlq-Trace-Id", "4bf92f3577b34da6a3ce929d0e0e4736")
            .containsEntry("Varpulis-Dlq-Durable", "route_detect__varpulis_cluster_pipeline_g__external_detect");
        assertThat(DeadLetterHeaders.envelope(headers, "{}".getBytes()).traceId())
            .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        ObjectMapper json = new ObjectMapper();
        assertThat(json.readTree(json.writeValueAsString(traced)).path("trace_id").asText())
            .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(json.readTree(json.writeValueAsString(ENVELOPE)).has("trace_id"))
            .as("the envelope of an untraced delivery keeps the older shape")
            .isFalse();
    }

    @Test
    void anElementParkedAloneKeepsItsIndex_nextAfterTheReason() {
        DeathEnvelope element = new DeathEnvelope(ENVELOPE.originalSubject(), "detect", 1, 1796886600, "bad line", "{}",
                null, "unprocessable", null, "VARPULIS_ROUTING", 42L, "g-1", 1796886590L, 7);
        Map<String, String> fields = DeadLetterHeaders.of(element, 4096);
        Headers headers = new Headers();
        fields.forEach(headers::add);

        assertThat(fields.keySet()).startsWith(DeadLetterHeaders.ORIGINAL_SUBJECT, "Varpulis-Dlq-Unit",
                "Varpulis-Dlq-Reason", "Varpulis-Dlq-Parked-Element");
        assertThat(DeadLetterHeaders.envelope(headers, "{}".getBytes()).parkedElement()).isEqualTo(7);
    }

    /**
     * A message another version or a hand wrote is still shown: a number that is not one
     * reads as absent.
     */
    @Test
    void numbersThatAreNotNumbersReadAsAbsent_notAsAnError() {
        Headers headers = new Headers();
        headers.add(DeadLetterHeaders.ORIGINAL_SUBJECT, "varpulis.cluster.pipeline.g._external.detect");
        headers.add("Varpulis-Dlq-Attempts", "five");
        headers.add("Varpulis-Dlq-Stream-Sequence", "");
        headers.add("Varpulis-Dlq-Parked-Element", "99999999999");
        headers.add("Varpulis-Dlq-Dead-At", " 1796886600 ");

        DeathEnvelope read = DeadLetterHeaders.envelope(headers, "{}".getBytes());

        assertThat(read.attempts()).isZero();
        assertThat(read.streamSequence()).isNull();
        assertThat(read.parkedElement()).isNull();
        assertThat(read.deadAt()).isEqualTo(1796886600L);
        assertThat(read.originalSubject()).isEqualTo("varpulis.cluster.pipeline.g._external.detect");
    }

    @Test
    void whenRoomIsShortTheReplayFieldsAreKeptFirst_andTheErrorIsCutRatherThanDropped() {
        Map<String, String> roomy = DeadLetterHeaders.of(ENVELOPE, 4096);
        Map<String, String> tight = DeadLetterHeaders.of(ENVELOPE, 200);
        Map<String, String> cut = DeadLetterHeaders.of(new DeathEnvelope(ENVELOPE.originalSubject(), "detect", 5,
                1796886600, "x".repeat(5000), null, null, "max_deliver", null, "VARPULIS_ROUTING", 42L, null, null),
                600);

        assertThat(roomy).containsKey("Varpulis-Dlq-Last-Error")
            .doesNotContainKey(DeadLetterHeaders.LAST_ERROR_TRUNCATED);
        assertThat(tight.keySet()).startsWith(DeadLetterHeaders.ORIGINAL_SUBJECT, "Varpulis-Dlq-Unit")
            .doesNotContain("Varpulis-Dlq-Error-Class");
        assertThat(tight.entrySet().stream().mapToInt(e -> e.getKey().length() + e.getValue().length() + 4).sum())
            .isLessThanOrEqualTo(200 - 12);
        assertThat(cut).containsEntry(DeadLetterHeaders.LAST_ERROR_TRUNCATED, "true");
        assertThat(cut.get("Varpulis-Dlq-Last-Error")).hasSizeLessThan(600).startsWith("xxx");
        assertThat(DeadLetterHeaders.of(ENVELOPE, 20)).isEmpty();
    }

    @Test
    void percentEncodingKeepsEveryCharacter() {
        String text = "a%b\tc\u0000d\u00e9\u4e2d\ud83d\ude00";
        assertThat(DeadLetterHeaders.decode(DeadLetterHeaders.encode(text))).isEqualTo(text);
        assertThat(DeadLetterHeaders.encode("100%")).isEqualTo("100%25");
    }

}
