package io.varpulis.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.varpulis.autoconfigure.JetStreamAutoConfiguration;
import io.varpulis.autoconfigure.NatsAutoConfiguration;
import io.varpulis.autoconfigure.SubstrateMetricsAutoConfiguration;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gauges an SRE alerts on, read from a real JetStream server: consumer pending and
 * ack pending, stream size, and DLQ depth.
 */
@BrokerTest
class ConsumerLagMetricsTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void gaugesShowConsumerLag_streamSize_andDlqDepth_perConsumerAndStreamOnly() throws Exception {
        RouteEdge edge = new RouteEdge("lag", "_external", "detect");
        try (SubstrateFixture node = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            var consumer = VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(), node.consumer());
            node.admin.declareConsumer(consumer);
            for (int i = 0; i < 3; i++) {
                node.transport.publish(OutboundMessage.of(edge.subject(), "{\"event_type\":\"T\"}")).get();
            }
            node.transport.publish(OutboundMessage.of(DurableNames.dlqSubject("detect"), "{}")).get();
            node.transport.publish(OutboundMessage.of(DurableNames.dlqSubject("coordinator:c1"), "{}")).get();
            MeterRegistry registry = new SimpleMeterRegistry();

            try (ConsumerLagMetrics metrics = new ConsumerLagMetrics(node.admin, registry, Duration.ofHours(1))) {
                metrics.refresh();

                assertThat(gauge(registry, "varpulis.consumer.pending", "consumer", consumer.durable())).isEqualTo(3);
                assertThat(gauge(registry, "varpulis.consumer.ack.pending", "consumer", consumer.durable())).isZero();
                assertThat(gauge(registry, "varpulis.stream.messages", "stream", VarpulisJetStream.ROUTING_STREAM))
                    .isEqualTo(3);
                assertThat(gauge(registry, "varpulis.stream.bytes", "stream", VarpulisJetStream.ROUTING_STREAM))
                    .isPositive();
                assertThat(gauge(registry, "varpulis.dlq.depth", "stream", VarpulisJetStream.DLQ_STREAM)).isEqualTo(2);
                assertThat(registry.find("varpulis.dlq.depth").gauges()).as("one DLQ depth series, not one per unit")
                    .hasSize(1);
                assertThat(gauge(registry, "varpulis.stream.max.bytes", "stream", VarpulisJetStream.ROUTING_STREAM))
                    .as("the routing stream's max_bytes")
                    .isEqualTo(1L << 30);
                assertThat(gauge(registry, "varpulis.stream.max.messages", "stream", VarpulisJetStream.DLQ_STREAM))
                    .as("the DLQ's max_msgs")
                    .isEqualTo(100_000);
                assertThat(registry.get("varpulis.jetstream.available").gauge().value()).isEqualTo(1);
            }
        }
    }

    @Test
    void lagGaugesAreConfiguredAlongsideMicrometersAutoConfiguredRegistry() {
        new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                            SimpleMetricsExportAutoConfiguration.class, NatsAutoConfiguration.class,
                            JetStreamAutoConfiguration.class, SubstrateMetricsAutoConfiguration.class))
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream")
            .run(context -> assertThat(context).hasSingleBean(ConsumerLagMetrics.class));
    }

    private static double gauge(MeterRegistry registry, String name, String tag, String value) {
        return registry.get(name).tag(tag, value).gauge().value();
    }

}
