package io.varpulis.jetstream;

import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The declarations carry ADR-007's settings exactly (SPEC sections 3 and 4). */
class VarpulisJetStreamTest {

    private static final long ONE_GIB = 1024L * 1024 * 1024;

    @Test
    void routingStreamCarriesTheAdrSettings() {
        StreamDeclaration routing = VarpulisJetStream.routingStream(1);
        StreamConfiguration c = routing.configuration();

        assertThat(routing.name()).isEqualTo("VARPULIS_ROUTING");
        assertThat(c.getSubjects()).containsExactly("varpulis.cluster.pipeline.>");
        assertThat(c.getRetentionPolicy()).isEqualTo(RetentionPolicy.Limits);
        assertThat(c.getMaxAge()).isEqualTo(Duration.ofHours(1));
        assertThat(c.getMaxBytes()).isEqualTo(ONE_GIB);
        assertThat(c.getDiscardPolicy()).isEqualTo(DiscardPolicy.Old);
        assertThat(c.getStorageType()).isEqualTo(StorageType.File);
        assertThat(c.getDuplicateWindow()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.getMaxMsgs()).isEqualTo(-1);
        assertThat(c.getMaxMsgsPerSubject()).isEqualTo(-1);
        assertThat(c.getReplicas()).isEqualTo(1);
    }

    @Test
    void heartbeatStreamCarriesTheAdrSettings() {
        StreamDeclaration heartbeat = VarpulisJetStream.heartbeatStream(1);
        StreamConfiguration c = heartbeat.configuration();

        assertThat(heartbeat.name()).isEqualTo("VARPULIS_HEARTBEAT");
        assertThat(c.getSubjects()).containsExactly("varpulis.cluster.heartbeat.>");
        assertThat(c.getRetentionPolicy()).isEqualTo(RetentionPolicy.Limits);
        assertThat(c.getMaxAge()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.getMaxMsgsPerSubject()).isEqualTo(16);
        assertThat(c.getDiscardPolicy()).isEqualTo(DiscardPolicy.Old);
        assertThat(c.getStorageType()).isEqualTo(StorageType.File);
        assertThat(c.getMaxBytes()).isEqualTo(-1);
        assertThat(c.getMaxMsgs()).isEqualTo(-1);
        assertThat(c.getReplicas()).isEqualTo(1);
    }

    @Test
    void deadLetterStreamCarriesTheAdrSettingsAndNoMaxAge() {
        StreamDeclaration dlq = VarpulisJetStream.deadLetterStream(1);
        StreamConfiguration c = dlq.configuration();

        assertThat(dlq.name()).isEqualTo("VARPULIS_DLQ");
        assertThat(c.getSubjects()).containsExactly("varpulis.dlq.>");
        assertThat(c.getRetentionPolicy()).isEqualTo(RetentionPolicy.Limits);
        assertThat(c.getMaxMsgs()).isEqualTo(100_000);
        assertThat(c.getMaxAge()).isEqualTo(Duration.ZERO);
        assertThat(c.getDiscardPolicy()).isEqualTo(DiscardPolicy.Old);
        assertThat(c.getStorageType()).isEqualTo(StorageType.File);
        assertThat(c.getMaxBytes()).isEqualTo(-1);
        assertThat(c.getReplicas()).isEqualTo(1);
    }

    @Test
    void dlqSubjectsAreCapturedByTheDlqStreamAndNotByTheRoutingOne() {
        assertThat(DurableNames.dlqSubject("detector")).startsWith("varpulis.dlq.");
        assertThat(VarpulisJetStream.routingStream(1).configuration().getSubjects())
            .noneMatch(s -> s.startsWith("varpulis.dlq"));
    }

    @Test
    void replicasSettingAppliesToEveryStream() {
        assertThat(VarpulisJetStream.builtInStreams(3))
            .allSatisfy(d -> assertThat(d.configuration().getReplicas()).isEqualTo(3));
    }

    @Test
    void routeEdgeConsumerCarriesTheAdrSettings() {
        String subject = "varpulis.cluster.pipeline.ssh.ingest.detector";

        ConsumerDeclaration consumer = VarpulisJetStream.routeEdgeConsumer("detector", subject,
                ConsumerSettings.defaults());

        assertThat(consumer.stream()).isEqualTo("VARPULIS_ROUTING");
        assertThat(consumer.durable()).isEqualTo(DurableNames.routeConsumer("detector", subject))
            .isEqualTo("route_detector__varpulis_cluster_pipeline_ssh_ingest_detector");
        assertThat(consumer.filterSubject()).isEqualTo(subject);
        assertAdrConsumerSettings(consumer.configuration());
    }

    @Test
    void heartbeatConsumerIsTheCoordinatorsDurableOnEveryWorker() {
        ConsumerDeclaration consumer = VarpulisJetStream.heartbeatConsumer("coordinator-0",
                ConsumerSettings.defaults());

        assertThat(consumer.stream()).isEqualTo("VARPULIS_HEARTBEAT");
        assertThat(consumer.durable()).isEqualTo("hb_coordinator-0");
        assertThat(consumer.filterSubject()).isEqualTo("varpulis.cluster.heartbeat.>");
        assertAdrConsumerSettings(consumer.configuration());
    }

    @Test
    void defaultNakBackOffIsAFixedTwoSeconds() {
        assertThat(ConsumerSettings.defaults().nakBackOff())
            .isEqualTo(new NakBackOff(Duration.ofSeconds(2), 1.0, Duration.ofSeconds(30), Duration.ZERO));
    }

    private static void assertAdrConsumerSettings(ConsumerConfiguration c) {
        assertThat(c.getAckPolicy()).isEqualTo(AckPolicy.Explicit);
        assertThat(c.getAckWait()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.getMaxDeliver()).isEqualTo(5);
        assertThat(c.getMaxAckPending()).isEqualTo(1024);
        assertThat(c.getInactiveThreshold()).isEqualTo(Duration.ofDays(7));
        assertThat(c.getDeliverPolicy()).isEqualTo(DeliverPolicy.All);
        // A pull consumer: no deliver subject.
        assertThat(c.getDeliverSubject()).isNull();
    }

}
