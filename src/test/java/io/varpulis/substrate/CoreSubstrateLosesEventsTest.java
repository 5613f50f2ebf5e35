package io.varpulis.substrate;

import io.varpulis.delivery.OutputEmitter;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 8, behaviour 2: on core, an event routed while its pipeline is down is
 * lost. Kept as a test because it documents why the jetstream substrate exists; the same
 * scenario on JetStream is in {@link JetStreamRouteDeliveryTest}.
 */
@BrokerTest
class CoreSubstrateLosesEventsTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.coreOnly();

    @Test
    void eventRoutedWhileItsPipelineIsDownIsLostOnCore() throws Exception {
        RouteEdge edge = new RouteEdge("b2", "_external", "detect");
        Event lost = Event.of("SshAuthFailure", Map.of("src_ip", "10.0.0.9"));
        Event seen = Event.of("SshAuthFailure", Map.of("src_ip", "10.0.0.10"));
        try (SubstrateFixture publisher = SubstrateFixture.connect(nats.url(), Substrate.CORE)) {
            PublishReceipt receipt = publisher.transport
                .publish(new OutboundMessage(edge.subject(), publisher.codec.encode(lost), "ignored-on-core"))
                .get();
            assertThat(receipt.stored()).as("core stores nothing").isFalse();

            List<Event> applied = new CopyOnWriteArrayList<>();
            try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.CORE);
                    Consumption ignored = worker.ingress(edge, (event, context) -> {
                        applied.add(event);
                        return List.of();
                    }, OutputEmitter.NONE).start(worker.transport, worker.consumer())) {
                worker.connection.flush(Duration.ofSeconds(2));
                publisher.transport.publish(new OutboundMessage(edge.subject(), publisher.codec.encode(seen), null))
                    .get();
                await().atMost(Duration.ofSeconds(5)).until(() -> !applied.isEmpty());
                await().during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(2))
                    .untilAsserted(
                            () -> assertThat(applied).as("the event published while the pipeline was down is gone")
                                .containsExactly(seen));
            }
        }
    }

}
