package io.varpulis.autoconfigure;

import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.transport.TransportSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The properties classes of {@code varpulis.nats.*} map to the settings the domain
 * receives: their defaults are ADR-007's (the records' {@code defaults()} and the
 * built-in streams of {@link VarpulisJetStream}), and what a user sets is carried.
 */
class NatsPropertiesMappingTest {

    @Test
    void theBuiltInStreamsDefaultToVarpulisJetStreamsDeclarations() {
        JetStreamStreamsProperties streams = new JetStreamStreamsProperties();

        assertThat(streams.builtInStreams()).extracting(NatsPropertiesMappingTest::json)
            .containsExactlyElementsOf(
                    VarpulisJetStream.builtInStreams(1).stream().map(NatsPropertiesMappingTest::json).toList());
    }

    @Test
    void theReplicasSettingAppliesToEveryBuiltInStream() {
        JetStreamStreamsProperties streams = new JetStreamStreamsProperties();
        streams.setReplicas(3);

        assertThat(streams.builtInStreams()).extracting(NatsPropertiesMappingTest::json)
            .containsExactlyElementsOf(
                    VarpulisJetStream.builtInStreams(3).stream().map(NatsPropertiesMappingTest::json).toList());
    }

    @Test
    void overriddenLimitsAreCarried() {
        JetStreamStreamsProperties tuned = new JetStreamStreamsProperties();
        tuned.getRouting().setMaxAge(Duration.ofMinutes(30));
        tuned.getHeartbeat().setMaxMsgsPerSubject(4L);
        tuned.getDlq().setMaxMsgs(10L);

        assertThat(tuned.routingStream().configuration().getMaxAge()).isEqualTo(Duration.ofMinutes(30));
        assertThat(tuned.heartbeatStream().configuration().getMaxMsgsPerSubject()).isEqualTo(4);
        assertThat(tuned.deadLetterStream().configuration().getMaxMsgs()).isEqualTo(10);
    }

    @Test
    void theConsumerAndTransportDefaultsAreTheRecordsDefaults() {
        JetStreamConsumerProperties consumer = new JetStreamConsumerProperties();

        assertThat(consumer.toSettings()).isEqualTo(ConsumerSettings.defaults());
        assertThat(new JetStreamPublishProperties().toSettings(consumer)).isEqualTo(TransportSettings.defaults());
    }

    @Test
    void theTransportsBatchIsCappedByMaxAckPending() {
        JetStreamConsumerProperties consumer = new JetStreamConsumerProperties();
        consumer.setMaxAckPending(100);

        assertThat(new JetStreamPublishProperties().toSettings(consumer).batchSize()).isEqualTo(100);
    }

    @Test
    void theConnectionsRequestCleanupIntervalIsTheLatePubAckWindow() {
        NatsConnectionProperties connection = new NatsConnectionProperties();
        connection.setInboxPrefix("_INBOX_worker_w1");

        assertThat(connection.toSettings(Duration.ofMinutes(3))).satisfies(settings -> {
            assertThat(settings.requestCleanupInterval()).isEqualTo(Duration.ofMinutes(3));
            assertThat(settings.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(settings.reconnectWait()).isEqualTo(Duration.ofSeconds(2));
            assertThat(settings.inboxPrefix()).isEqualTo("_INBOX_worker_w1");
        });
    }

    private static String json(StreamDeclaration declaration) {
        return declaration.configuration().toJson();
    }

}
