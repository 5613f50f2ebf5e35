package io.varpulis.jetstream;

import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.nats.NatsProperties;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The declarations carry ADR-007's settings exactly (SPEC sections 3 and 4). */
class VarpulisJetStreamTest {

    private static final long ONE_GIB = 1024L * 1024 * 1024;

    private final NatsProperties.JetStream defaults = new NatsProperties().getJetstream();

    @Test
    void routingStreamCarriesTheAdrSettings() {
        StreamDeclaration routing = JetStreamSettings.routing(defaults);
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
        StreamDeclaration heartbeat = JetStreamSettings.heartbeat(defaults);
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
        StreamDeclaration dlq = JetStreamSettings.deadLetters(defaults);
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
        assertThat(JetStreamSettings.routing(defaults).configuration().getSubjects())
            .noneMatch(s -> s.startsWith("varpulis.dlq"));
    }

    @Test
    void replicasSettingAppliesToEveryStream() {
        NatsProperties.JetStream production = new NatsProperties.JetStream();
        production.setReplicas(3);

        assertThat(List.of(JetStreamSettings.routing(production), JetStreamSettings.heartbeat(production),
                JetStreamSettings.deadLetters(production)))
            .allSatisfy(d -> assertThat(d.configuration().getReplicas()).isEqualTo(3));
    }

    @Test
    void overriddenLimitsAreCarried() {
        NatsProperties.JetStream tuned = new NatsProperties.JetStream();
        tuned.getRouting().setMaxAge(Duration.ofMinutes(30));
        tuned.getHeartbeat().setMaxMsgsPerSubject(4L);
        tuned.getDlq().setMaxMsgs(10L);

        assertThat(JetStreamSettings.routing(tuned).configuration().getMaxAge()).isEqualTo(Duration.ofMinutes(30));
        assertThat(JetStreamSettings.heartbeat(tuned).configuration().getMaxMsgsPerSubject()).isEqualTo(4);
        assertThat(JetStreamSettings.deadLetters(tuned).configuration().getMaxMsgs()).isEqualTo(10);
    }

    @Test
    void routeEdgeConsumerCarriesTheAdrSettings() {
        String subject = "varpulis.cluster.pipeline.ssh.ingest.detector";

        ConsumerDeclaration consumer = VarpulisJetStream.routeEdgeConsumer("detector", subject,
                ConsumerSettings.from(defaults.getConsumer()));

        assertThat(consumer.stream()).isEqualTo("VARPULIS_ROUTING");
        assertThat(consumer.durable()).isEqualTo(DurableNames.routeConsumer("detector", subject))
            .isEqualTo("route_detector__varpulis_cluster_pipeline_ssh_ingest_detector");
        assertThat(consumer.filterSubject()).isEqualTo(subject);
        assertAdrConsumerSettings(consumer.configuration());
    }

    @Test
    void heartbeatConsumerIsTheCoordinatorsDurableOnEveryWorker() {
        ConsumerDeclaration consumer = VarpulisJetStream.heartbeatConsumer("coordinator-0",
                ConsumerSettings.from(defaults.getConsumer()));

        assertThat(consumer.stream()).isEqualTo("VARPULIS_HEARTBEAT");
        assertThat(consumer.durable()).isEqualTo("hb_coordinator-0");
        assertThat(consumer.filterSubject()).isEqualTo("varpulis.cluster.heartbeat.>");
        assertAdrConsumerSettings(consumer.configuration());
    }

    @Test
    void defaultNakDelayIsTwoSeconds() {
        assertThat(new NatsProperties().getJetstream().getConsumer().getNakDelay()).isEqualTo(Duration.ofSeconds(2));
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
