package io.varpulis.jetstream;

import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How an existing stream differs from its declaration: what the WARN line and the health
 * details show.
 */
class StreamDriftTest {

    @Test
    void streamEqualToItsDeclarationHasNoDrift() {
        StreamConfiguration declared = VarpulisJetStream.routingStream(1).configuration();

        StreamDrift drift = StreamDrift.between(declared, StreamConfiguration.builder(declared).build());

        assertThat(drift.isEmpty()).isTrue();
        assertThat(drift.differences()).isEmpty();
        assertThat(drift.describe()).isEmpty();
        assertThat(drift.stream()).isEqualTo("VARPULIS_ROUTING");
    }

    @Test
    void longerMaxAgeIsDescribedWithTheExpectedValue() {
        StreamConfiguration declared = VarpulisJetStream.routingStream(1).configuration();
        StreamConfiguration handTuned = StreamConfiguration.builder(declared).maxAge(Duration.ofHours(2)).build();

        StreamDrift drift = StreamDrift.between(declared, handTuned);

        assertThat(drift.isEmpty()).isFalse();
        assertThat(drift.describe()).isEqualTo("max_age=2h (expected 1h)");
        assertThat(drift.differences()).containsExactly(new StreamDrift.Difference("max_age", "1h", "2h"));
    }

    @Test
    void everyDifferenceIsListedWithUnlimitedForAbsentLimits() {
        StreamConfiguration declared = VarpulisJetStream.deadLetterStream(1).configuration();
        StreamConfiguration actual = StreamConfiguration.builder(declared)
            .maxMessages(-1)
            .maxAge(Duration.ofDays(1))
            .storageType(StorageType.Memory)
            .discardPolicy(DiscardPolicy.New)
            .build();

        StreamDrift drift = StreamDrift.between(declared, actual);

        assertThat(drift.differences()).extracting(StreamDrift.Difference::setting)
            .containsExactlyInAnyOrder("max_msgs", "max_age", "storage", "discard");
        assertThat(drift.describe()).contains("max_msgs=unlimited (expected 100000)")
            .contains("max_age=24h (expected unlimited)");
    }

    @Test
    void subjectOrderIsNotDrift() {
        StreamConfiguration declared = StreamConfiguration.builder().name("S").subjects("a.>", "b.>").build();
        StreamConfiguration actual = StreamConfiguration.builder().name("S").subjects("b.>", "a.>").build();

        assertThat(StreamDrift.between(declared, actual).isEmpty()).isTrue();
    }

    @Test
    void serverDefaultDuplicateWindowIsNotDriftWhenTheDeclarationLeavesItUnset() {
        StreamConfiguration declared = VarpulisJetStream.heartbeatStream(1).configuration();
        StreamConfiguration asTheServerReportsIt = StreamConfiguration.builder(declared)
            .duplicateWindow(Duration.ofMinutes(2))
            .build();

        assertThat(StreamDrift.between(declared, asTheServerReportsIt).isEmpty()).isTrue();
    }

    @Test
    void differentDuplicateWindowIsDriftWhenDeclared() {
        StreamConfiguration declared = VarpulisJetStream.routingStream(1).configuration();
        StreamConfiguration actual = StreamConfiguration.builder(declared)
            .duplicateWindow(Duration.ofSeconds(30))
            .build();

        assertThat(StreamDrift.between(declared, actual).describe()).isEqualTo("duplicate_window=30s (expected 2m)");
    }

    @Test
    void replicasAndSubjectsAreCompared() {
        StreamConfiguration declared = VarpulisJetStream.routingStream(1).configuration();
        StreamConfiguration actual = StreamConfiguration.builder(declared)
            .replicas(3)
            .subjects("varpulis.cluster.pipeline.ssh.>")
            .build();

        assertThat(StreamDrift.between(declared, actual).differences()).extracting(StreamDrift.Difference::setting)
            .containsExactlyInAnyOrder("replicas", "subjects");
    }

}
