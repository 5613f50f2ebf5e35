package io.varpulis.substrate;

import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC section 8, behaviour 10: the streams carry the section 3 settings, provisioning
 * twice is idempotent, and a limit an operator edited by hand survives a restart (drift
 * reported, stream never updated).
 */
@BrokerTest
class StreamProvisioningTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void streamsCarryTheAdrSettings_provisioningTwiceIsIdempotent_andAHandEditedLimitSurvivesARestart()
            throws Exception {
        try (SubstrateFixture node = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            StreamConfiguration routing = node.jsm().getStreamInfo(VarpulisJetStream.ROUTING_STREAM).getConfiguration();
            assertThat(routing.getSubjects()).containsExactly("varpulis.cluster.pipeline.>");
            assertThat(routing.getRetentionPolicy()).isEqualTo(RetentionPolicy.Limits);
            assertThat(routing.getMaxAge()).isEqualTo(Duration.ofHours(1));
            assertThat(routing.getMaxBytes()).isEqualTo(1L << 30);
            assertThat(routing.getDiscardPolicy()).isEqualTo(DiscardPolicy.Old);
            assertThat(routing.getStorageType()).isEqualTo(StorageType.File);
            assertThat(routing.getDuplicateWindow()).isEqualTo(Duration.ofMinutes(2));

            StreamConfiguration heartbeat = node.jsm()
                .getStreamInfo(VarpulisJetStream.HEARTBEAT_STREAM)
                .getConfiguration();
            assertThat(heartbeat.getSubjects()).containsExactly("varpulis.cluster.heartbeat.>");
            assertThat(heartbeat.getMaxAge()).isEqualTo(Duration.ofMinutes(5));
            assertThat(heartbeat.getMaxMsgsPerSubject()).isEqualTo(16);
            assertThat(heartbeat.getDiscardPolicy()).isEqualTo(DiscardPolicy.Old);
            assertThat(heartbeat.getStorageType()).isEqualTo(StorageType.File);

            StreamConfiguration dlq = node.jsm().getStreamInfo(VarpulisJetStream.DLQ_STREAM).getConfiguration();
            assertThat(dlq.getSubjects()).containsExactly("varpulis.dlq.>");
            assertThat(dlq.getMaxMsgs()).isEqualTo(100_000);
            assertThat(dlq.getMaxAge()).isEqualTo(Duration.ZERO);
            assertThat(dlq.getStorageType()).isEqualTo(StorageType.File);

            var created = node.jsm().getStreamInfo(VarpulisJetStream.ROUTING_STREAM).getCreateTime();
            JetStreamAdmin again = new JetStreamAdmin(node.connection, null);
            again.provision(defaults(), List.of());
            assertThat(again.drift()).isEmpty();
            assertThat(node.jsm().getStreamInfo(VarpulisJetStream.ROUTING_STREAM).getCreateTime()).isEqualTo(created);

            node.jsm().updateStream(StreamConfiguration.builder(routing).maxAge(Duration.ofHours(2)).build());
        }
        nats.restart();
        try (SubstrateFixture restarted = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            assertThat(restarted.jsm().getStreamInfo(VarpulisJetStream.ROUTING_STREAM).getConfiguration().getMaxAge())
                .as("the operator's limit survives")
                .isEqualTo(Duration.ofHours(2));
            assertThat(restarted.admin.drift()).containsOnlyKeys(VarpulisJetStream.ROUTING_STREAM);
            assertThat(restarted.admin.drift().get(VarpulisJetStream.ROUTING_STREAM).describe())
                .isEqualTo("max_age=2h (expected 1h)");
        }
    }

    private static List<StreamDeclaration> defaults() {
        return VarpulisJetStream.builtInStreams(1);
    }

}
