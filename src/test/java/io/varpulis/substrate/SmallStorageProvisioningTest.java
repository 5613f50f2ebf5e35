package io.varpulis.substrate;

import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC section 3: where the server cannot reserve max_bytes (more than its JetStream storage), the routing stream is
 * created bounded by max_age only.
 */
@BrokerTest
class SmallStorageProvisioningTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream()
            .withConfig("jetstream { max_file_store: 64MB, max_memory_store: 16MB }");

    @Test
    void routingStreamIsBoundedByMaxAgeOnlyWhenTheServerCannotReserveOneGibibyte() throws Exception {
        try (SubstrateFixture node = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            var routing = node.jsm().getStreamInfo(VarpulisJetStream.ROUTING_STREAM).getConfiguration();
            assertThat(routing.getMaxBytes()).isEqualTo(-1);
            assertThat(routing.getMaxAge()).isEqualTo(Duration.ofHours(1));
        }
    }
}
