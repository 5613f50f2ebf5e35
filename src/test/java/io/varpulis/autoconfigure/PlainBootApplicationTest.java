package io.varpulis.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Connection;
import io.varpulis.autoconfigure.node.ImportNodeAutoConfiguration;
import io.varpulis.cluster.coordinator.CoordinatorNode;
import io.varpulis.cluster.worker.WorkerNode;
import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.health.JetStreamHealthIndicator;
import io.varpulis.health.NatsHealthIndicator;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.JetStreamProvisioner;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.metrics.ConsumerLagMetrics;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsConnectionDetails;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.transport.ClusterTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain Spring Boot 4.1 application (one {@code @EnableAutoConfiguration}, nothing of
 * ours declared) that puts the jar on its classpath gets every bean of the substrate from
 * {@code varpulis.nats.*} alone, through the auto-configurations the jar registers, and
 * no cluster node unless it imports the node's auto-configurations and asks for one
 * (issues 10 and 35).
 */
@BrokerTest
class PlainBootApplicationTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withUserConfiguration(PlainApplication.class)
        .withPropertyValues("varpulis.nats.url=" + nats.url());

    @Test
    void onJetStreamItGetsTheConnectionTheTransportTheParkerTheConsoleTheHealthAndTheMetersButNoStreamItDidNotDeclare() {
        runner.withPropertyValues("varpulis.nats.substrate=jetstream").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Substrate.class)).isEqualTo(Substrate.JETSTREAM);
            assertThat(context).hasSingleBean(NatsConnectionEvents.class);
            assertThat(context.getBean(NatsConnectionDetails.class))
                .isInstanceOf(PropertiesNatsConnectionDetails.class);
            assertThat(context.getBean(Connection.class).getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThat(context).hasSingleBean(JetStreamAdmin.class).hasSingleBean(JetStreamProvisioner.class);
            // A service gets what it declares (issue 33): this one declares nothing, so
            // no stream is created.
            assertThat(context).doesNotHaveBean(StreamDeclaration.class);
            assertThat(context.getBean(JetStreamAdmin.class).declaredStreams()).isEmpty();
            assertThat(context.getBean(ClusterTransport.class).substrate()).isEqualTo(Substrate.JETSTREAM);
            assertThat(context).doesNotHaveBean(EventCodec.class)
                .hasSingleBean(DeadLetterParker.class)
                .hasSingleBean(DeadLetterConsole.class);
            assertThat(context).hasSingleBean(NatsHealthIndicator.class).hasSingleBean(JetStreamHealthIndicator.class);
            assertThat(context).hasSingleBean(MeterRegistry.class)
                .hasSingleBean(SubstrateMetrics.class)
                .hasSingleBean(ConsumerLagMetrics.class);
            assertThat(context).doesNotHaveBean(CoordinatorNode.class).doesNotHaveBean(WorkerNode.class);
        });
    }

    @Test
    void onCoreItGetsTheConnectionAndTheTransportAndNothingOfJetStream() {
        runner.withPropertyValues("varpulis.nats.substrate=core").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ClusterTransport.class).substrate()).isEqualTo(Substrate.CORE);
            assertThat(context).hasSingleBean(NatsHealthIndicator.class).hasSingleBean(DeadLetterParker.class);
            assertThat(context).doesNotHaveBean(JetStreamAdmin.class)
                .doesNotHaveBean(StreamDeclaration.class)
                .doesNotHaveBean(JetStreamHealthIndicator.class)
                .doesNotHaveBean(DeadLetterConsole.class)
                .doesNotHaveBean(ConsumerLagMetrics.class);
        });
    }

    @Test
    void theClusterNodeAndItsThreeStreamsComeOnlyWhenTheApplicationImportsTheNodeAndAsksForIt() {
        String[] worker = { "varpulis.nats.substrate=jetstream", "varpulis.cluster.enabled=true",
                "varpulis.cluster.role=worker", "varpulis.cluster.worker-id=plain-app" };
        // The node's auto-configurations are the node's own (issue 35): a property alone
        // starts no node (issue 44: the library names no node, so nothing refuses it).
        runner.withPropertyValues(worker)
            .run(context -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(WorkerNode.class)
                .doesNotHaveBean(StreamDeclaration.class));
        runner.withUserConfiguration(NodeApplication.class).withPropertyValues(worker).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(WorkerNode.class).doesNotHaveBean(CoordinatorNode.class);
            assertThat(context.getBeansOfType(StreamDeclaration.class).values()).extracting(StreamDeclaration::name)
                .containsExactlyInAnyOrder("VARPULIS_ROUTING", "VARPULIS_HEARTBEAT", "VARPULIS_DLQ");
            assertThat(context.getBean(JetStreamAdmin.class).streamInfo("VARPULIS_ROUTING")).isPresent();
        });
    }

    /**
     * What {@code @SpringBootApplication} amounts to, minus component scanning: nothing
     * of ours is declared.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PlainApplication {

    }

    /** An application that is a node, as {@code VarpulisClusterApplication} is. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @ImportNodeAutoConfiguration
    static class NodeApplication {

    }

}
