package io.varpulis.substrate;

import io.nats.client.Dispatcher;
import io.nats.client.api.ConsumerInfo;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 9, "a delivery a live worker holds (applying it, or waiting in its batch)
 * never burns a delivery" (issue 30): a pipeline so slow that the deliveries it holds
 * wait in its queue for more than twice the consumer's ack_wait is a slow pipeline, not a
 * failing one. Before the delivery container, the end of each pulled batch waited in the
 * client untracked past ack_wait, was redelivered meanwhile and, on a slow enough disk,
 * given up by the server after max_deliver without anyone seeing it.
 */
@BrokerTest
class SlowPipelineHeldDeliveriesTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void deliveriesHeldPastAckWaitAreKeptInProgress_noneIsRedeliveredOrGivenUp() throws Exception {
        NatsTestProperties properties = new NatsTestProperties();
        properties.consumer().setAckWait(Duration.ofSeconds(2));
        properties.consumer().setMaxDeliver(2);
        RouteEdge edge = new RouteEdge("slow", "_external", "detect");
        String durable = DurableNames.routeConsumer(edge.to(), edge.subject());
        Map<String, AtomicInteger> applies = new ConcurrentHashMap<>();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, properties)) {
            AtomicInteger givenUp = new AtomicInteger();
            Dispatcher advisories = worker.connection.createDispatcher(m -> givenUp.incrementAndGet());
            advisories.subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>");
            try (Consumption ignored = worker.ingress(edge, (event, context) -> {
                Thread.sleep(60); // 100 x 60 ms = 6 s for what the client holds at once:
                                  // three ack_waits
                applies.computeIfAbsent((String) event.fields().get("n"), n -> new AtomicInteger()).incrementAndGet();
                return List.of();
            }, OutputEmitter.NONE).start(worker.transport, worker.consumer())) {
                publish(worker, edge, 100);
                await().atMost(Duration.ofSeconds(30)).until(() -> applies.size() == 100);
                ConsumerInfo info = worker.jsm().getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable);
                await().atMost(Duration.ofSeconds(5))
                    .until(() -> worker.jsm()
                        .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable)
                        .getNumAckPending() == 0);
                assertThat(applies.values()).as("each event applied once").allSatisfy(n -> assertThat(n.get()).isOne());
                assertThat(info.getRedelivered()).as("no delivery redelivered while the worker held it").isZero();
                assertThat(givenUp.get()).as("no max-deliveries advisory").isZero();
                assertThat(worker.metrics.count("varpulis.consumer.stalls", "unit", "detect"))
                    .as("slow, not stalled: something was settled within each ack_wait")
                    .isZero();
            }
        }
    }

    @Test
    void aPipelineThatSettlesNothingForAWholeAckWaitIsReportedStalled_onceUntilItMovesAgain() throws Exception {
        NatsTestProperties properties = new NatsTestProperties();
        properties.consumer().setAckWait(Duration.ofSeconds(2));
        RouteEdge edge = new RouteEdge("stalled", "_external", "detect");
        CompletableFuture<Void> outputsStored = new CompletableFuture<>();
        AtomicInteger applied = new AtomicInteger();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, properties);
                Consumption ignored = worker.ingress(edge, (event, context) -> {
                    applied.incrementAndGet();
                    return List.of(event);
                }, (outputs, input) -> outputsStored).start(worker.transport, worker.consumer())) {
            publish(worker, edge, 3);
            await().atMost(Duration.ofSeconds(10)).until(() -> applied.get() == 3);
            await().atMost(Duration.ofSeconds(10))
                .until(() -> worker.metrics.count("varpulis.consumer.stalls", "unit", "detect") == 1);
            await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(worker.metrics.count("varpulis.consumer.stalls", "unit", "detect"))
                    .as("one stall, reported once")
                    .isEqualTo(1));

            outputsStored.complete(null);
            String durable = DurableNames.routeConsumer(edge.to(), edge.subject());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> worker.jsm()
                    .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable)
                    .getNumAckPending() == 0);
            assertThat(worker.jsm().getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable).getRedelivered())
                .as("kept in progress through the stall")
                .isZero();
        }
    }

    private static void publish(SubstrateFixture worker, RouteEdge edge, int count) {
        CompletableFuture<?>[] sent = new CompletableFuture<?>[count];
        for (int i = 0; i < count; i++) {
            sent[i] = worker.transport.publish(new OutboundMessage(edge.subject(),
                    worker.codec.encode(Event.of("SshAuthFailure", Map.of("n", Integer.toString(i)))),
                    edge.group() + "-" + i));
        }
        CompletableFuture.allOf(sent).join();
    }

}
