package io.varpulis.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.varpulis.autoconfigure.JetStreamAutoConfiguration;
import io.varpulis.autoconfigure.NatsAutoConfiguration;
import io.varpulis.autoconfigure.SubstrateMetricsAutoConfiguration;
import io.varpulis.autoconfigure.TransportAutoConfiguration;
import io.varpulis.nats.Subjects;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The publish latency timer {@code varpulis.events.publish{kind,outcome}} on a real
 * JetStream server.
 */
@BrokerTest
class PublishLatencyTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private SubstrateFixture node;

    private MeterRegistry registry;

    private ClusterTransport timed;

    @BeforeEach
    void connect() throws Exception {
        node = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
        registry = new SimpleMeterRegistry();
        timed = new TimedClusterTransport(node.transport, registry);
    }

    @AfterEach
    void close() throws Exception {
        node.close();
    }

    @Test
    void publishIsTimedFromTheCallToItsPubAck_taggedByKindAndOutcome() throws Exception {
        timed.publish(OutboundMessage.of(new RouteEdge("lat", "_external", "detect").subject(), "{}")).get();
        timed.publish(OutboundMessage.of(Subjects.heartbeat("w1"), "{}")).get();

        Timer routes = registry.get(TimedClusterTransport.PUBLISH_TIMER)
            .tags("kind", "route", "outcome", "confirmed")
            .timer();
        assertThat(routes.count()).isEqualTo(1);
        assertThat(routes.totalTime(TimeUnit.NANOSECONDS)).isPositive();
        assertThat(registry.get(TimedClusterTransport.PUBLISH_TIMER).tags("kind", "heartbeat").timer().count())
            .isEqualTo(1);
    }

    @Test
    void aPublishNoStreamConfirmedIsTimedAsFailed_andStillFailsForTheCaller() {
        assertThatThrownBy(() -> timed.publish(OutboundMessage.of("varpulis.nowhere.x", "{}")).get())
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(PublishException.class);

        assertThat(registry.get(TimedClusterTransport.PUBLISH_TIMER)
            .tags("kind", "other", "outcome", "failed")
            .timer()
            .count()).isEqualTo(1);
    }

    @Test
    void tagsStayBoundedWhateverTheGroupsPipelinesAndWorkers() throws Exception {
        for (int i = 0; i < 20; i++) {
            timed.publish(OutboundMessage.of(new RouteEdge("group" + i, "_external", "p" + i).subject(), "{}")).get();
            timed.publish(OutboundMessage.of(Subjects.heartbeat("worker" + i), "{}")).get();
        }

        assertThat(registry.find(TimedClusterTransport.PUBLISH_TIMER).timers()).hasSize(2);
        assertThat(TimedClusterTransport.kind("varpulis.cluster.pipeline.g.a.b")).isEqualTo("route");
        assertThat(TimedClusterTransport.kind("varpulis.cluster.heartbeat.w")).isEqualTo("heartbeat");
        assertThat(TimedClusterTransport.kind("varpulis.dlq.detect")).isEqualTo("dlq");
        assertThat(TimedClusterTransport.kind("orders.eu.42")).isEqualTo("other");
    }

    @Test
    void theAutoConfiguredTransportIsTimedWhenAMeterRegistryExists() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class, JetStreamAutoConfiguration.class,
                    TransportAutoConfiguration.class, SubstrateMetricsAutoConfiguration.class))
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream");

        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            ClusterTransport transport = context.getBean(ClusterTransport.class);
            assertThat(transport).isInstanceOf(TimedClusterTransport.class);
            assertThat(transport.substrate()).isEqualTo(Substrate.JETSTREAM);
            transport.publish(OutboundMessage.of(Subjects.heartbeat("w1"), "{}")).get();
            assertThat(context.getBean(MeterRegistry.class).get(TimedClusterTransport.PUBLISH_TIMER).timer().count())
                .isEqualTo(1);
        });
        runner.run(context -> assertThat(context.getBean(ClusterTransport.class))
            .isNotInstanceOf(TimedClusterTransport.class));
    }

}
