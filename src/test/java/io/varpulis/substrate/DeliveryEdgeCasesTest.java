package io.varpulis.substrate;

import io.nats.client.api.ConsumerConfiguration;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.NatsTestProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The ways an event could slip between ack, nak and park, each closed: a processor that
 * throws an Error, a durable that exists with another max_deliver, a DLQ that refuses the
 * park on the last delivery, and two route edges whose durable names collide.
 */
@BrokerTest
class DeliveryEdgeCasesTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Event EVENT = Event.of("SshAuthFailure", Map.of("src_ip", "10.0.0.9"));

    @Test
    void processorThatThrowsAnErrorIsRetriedThenParked_notLeftToTheDispatcher() throws Exception {
        RouteEdge edge = new RouteEdge("err", "_external", "detect");
        AtomicInteger attempts = new AtomicInteger();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                Consumption ignored = worker.ingress(edge, (event, context) -> {
                    attempts.incrementAndGet();
                    throw new AssertionError("invariant broken");
                }, OutputEmitter.NONE).start(worker.transport, worker.consumer())) {
            worker.transport.publish(new OutboundMessage(edge.subject(), worker.codec.encode(EVENT), "err-1")).get();
            await().atMost(Duration.ofSeconds(15))
                .until(() -> worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason",
                        "max_deliver") == 1);
            assertThat(attempts).hasValue(5);
            assertThat(JetStreamRouteDeliveryTest.lastParked(worker, "detect").get("last_error").asText())
                .isEqualTo("invariant broken");
        }
    }

    @Test
    void parkingFollowsTheMaxDeliverOfADurableThatAlreadyExists() throws Exception {
        RouteEdge edge = new RouteEdge("md3", "_external", "detect");
        AtomicInteger attempts = new AtomicInteger();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            var declared = VarpulisJetStream.routeEdgeConsumer("detect", edge.subject(), worker.consumer());
            worker.jsm()
                .addOrUpdateConsumer(VarpulisJetStream.ROUTING_STREAM,
                        ConsumerConfiguration.builder(declared.configuration()).maxDeliver(3).build());
            try (Consumption ignored = worker.ingress(edge, (event, context) -> {
                attempts.incrementAndGet();
                throw new IllegalStateException("always fails");
            }, OutputEmitter.NONE).start(worker.transport, worker.consumer())) {
                worker.transport.publish(new OutboundMessage(edge.subject(), worker.codec.encode(EVENT), "md3-1"))
                    .get();
                await().atMost(Duration.ofSeconds(15))
                    .until(() -> worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason",
                            "max_deliver") == 1);
                assertThat(attempts).as("the server's max_deliver (3), not the declared 5").hasValue(3);
            }
        }
    }

    @Test
    void parkRefusedOnTheLastDeliveryIsTriedAgainUntilTheDlqTakesIt() throws Exception {
        RouteEdge edge = new RouteEdge("dlqdown", "_external", "detect");
        NatsTestProperties properties = new NatsTestProperties();
        properties.consumer().setNakDelay(SubstrateFixture.TEST_NAK_DELAY);
        properties.consumer().setMaxDeliver(1);
        properties.publishing().setPublishTimeout(Duration.ofMillis(500));
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, properties)) {
            worker.jsm().deleteStream(VarpulisJetStream.DLQ_STREAM);
            try (Consumption ignored = worker.ingress(edge, (event, context) -> {
                throw new IllegalStateException("poison");
            }, OutputEmitter.NONE).start(worker.transport, properties.consumerSettings())) {
                worker.transport.publish(new OutboundMessage(edge.subject(), worker.codec.encode(EVENT), "dd-1")).get();
                await().during(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(3))
                    .untilAsserted(() -> assertThat(
                            worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason", "max_deliver"))
                        .as("no DLQ yet")
                        .isZero());
                worker.admin.declareStream(properties.streams().deadLetterStream());

                await().atMost(Duration.ofSeconds(20))
                    .until(() -> worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason",
                            "max_deliver") == 1);
                assertThat(worker.metrics.count("varpulis.events.stranded", "unit", "detect")).isZero();
                assertThat(JetStreamRouteDeliveryTest.dlqDepth(worker)).isEqualTo(1);
                await().atMost(Duration.ofSeconds(5))
                    .until(() -> worker.jsm()
                        .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM,
                                DurableNames.routeConsumer("detect", edge.subject()))
                        .getNumAckPending() == 0);
            }
        }
    }

    @Test
    void twoRouteEdgesWhoseDurableNamesCollideAreRefused_neverShareAConsumer() throws Exception {
        RouteEdge first = new RouteEdge("g", "a_b", "c");
        RouteEdge second = new RouteEdge("g_a", "b", "c");
        assertThat(DurableNames.routeConsumer("c", first.subject()))
            .isEqualTo(DurableNames.routeConsumer("c", second.subject()));
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                Consumption ignored = worker.ingress(first, (event, context) -> List.of(), OutputEmitter.NONE)
                    .start(worker.transport, worker.consumer())) {
            assertThatThrownBy(() -> worker.ingress(second, (event, context) -> List.of(), OutputEmitter.NONE)
                .start(worker.transport, worker.consumer())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sanitise to the same durable name");
        }
    }

}
