package io.varpulis.substrate;

import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC section 3: where the server cannot reserve max_bytes (more than its JetStream
 * storage), the routing stream is created bounded by max_age only.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class SmallStorageProvisioningTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream()
        .withConfig("jetstream { max_file_store: 64MB, max_memory_store: 16MB }");

    @Test
    void routingStreamIsBoundedByMaxAgeOnlyWhenTheServerCannotReserveOneGibibyte(CapturedOutput output)
            throws Exception {
        try (SubstrateFixture node = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            var routing = node.jsm().getStreamInfo(VarpulisJetStream.ROUTING_STREAM).getConfiguration();
            assertThat(routing.getMaxBytes()).isEqualTo(-1);
            assertThat(routing.getMaxAge()).isEqualTo(Duration.ofHours(1));
        }
        // A later node finds the stream the fallback made: it names the fallback, not an
        // operator (issue 30).
        try (SubstrateFixture later = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            assertThat(later.admin.drift()).containsKey(VarpulisJetStream.ROUTING_STREAM);
        }
        assertThat(output.getOut())
            .contains("a node created it bounded by max_age only because a server could not " + "reserve its max_bytes")
            .doesNotContain("leaving it as the operator set it");
    }

}
