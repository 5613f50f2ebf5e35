package io.varpulis.nats;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Parsing of {@code varpulis.nats.substrate} / {@code VARPULIS_NATS_SUBSTRATE} (SPEC
 * section 2, ADR-007).
 */
class SubstrateTest {

    @ParameterizedTest
    @ValueSource(strings = { "core", "CORE", "Core", "  core\t", "pubsub", "PubSub", "pub_sub", " PUB_SUB " })
    void coreAndItsAliasesSelectCore(String value) {
        assertThat(Substrate.parse(value)).isEqualTo(Substrate.CORE);
    }

    @ParameterizedTest
    @ValueSource(strings = { "jetstream", "JetStream", "JETSTREAM", " jetstream ", "js", "JS", "\tJs\n" })
    void jetstreamAndItsAliasSelectJetStream(String value) {
        assertThat(Substrate.parse(value)).isEqualTo(Substrate.JETSTREAM);
    }

    @ParameterizedTest
    @ValueSource(strings = { "jetstrem", "pub-sub", "nats", "core,jetstream", "j s", "   " })
    void unknownValueFailsNamingTheValueAndTheAcceptedOnes(String value) {
        assertThatThrownBy(() -> Substrate.parse(value)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'" + value + "'")
            .hasMessageContaining("core")
            .hasMessageContaining("jetstream")
            .hasMessageContaining("pubsub")
            .hasMessageContaining("pub_sub")
            .hasMessageContaining("js");
    }

    @ParameterizedTest
    @NullAndEmptySource
    void missingValueFailsInsteadOfDefaulting(String value) {
        assertThatThrownBy(() -> Substrate.parse(value)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'" + value + "'")
            .hasMessageContaining(Substrate.ACCEPTED);
    }

    @Test
    void onlyJetStreamIsDurable() {
        assertThat(Substrate.JETSTREAM.isDurable()).isTrue();
        assertThat(Substrate.CORE.isDurable()).isFalse();
    }

    @Test
    void canonicalNamesParseBackToTheSameSubstrate() {
        for (Substrate substrate : Substrate.values()) {
            assertThat(Substrate.parse(substrate.id())).isSameAs(substrate);
            assertThat(substrate.toString()).isEqualTo(substrate.id());
        }
        assertThat(Substrate.CORE.id()).isEqualTo("core");
        assertThat(Substrate.JETSTREAM.id()).isEqualTo("jetstream");
    }

}
