package io.varpulis.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One element of a batch parked on its own
 * ({@link io.varpulis.pipeline.ProcessingContext#park}), on a real JetStream server: the
 * rest of the batch is applied, the element's death envelope is stored before the batch
 * is acked, and a batch delivered again parks it once.
 */
@BrokerTest
class BatchElementParkingTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    /** Applies each element's {@code n}; an element with {@code bad} is parked. */
    private static EventProcessor elements(List<Integer> applied) {
        return (event, context) -> {
            for (EventBatch.Element element : EventBatch.elements(event)) {
                if (element.event().fields().containsKey("bad")) {
                    context.park(element.index(), element.event(), "element " + element.index() + " is bad");
                }
                else {
                    applied.add(((Number) element.event().fields().get("n")).intValue());
                }
            }
            return List.of();
        };
    }

    @Test
    void aBadElementIsParkedAloneWithItsEnvelope_theOthersApplied_andTheBatchAckedOnce() throws Exception {
        List<Integer> applied = new CopyOnWriteArrayList<>();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            PipelineHost host = host(worker, elements(applied), KeyValueStateFactory.inMemory());
            host.deploy(group("batches"), "detect", KeyValueStateFactory.NO_PLACEMENT_EPOCH);
            RouteEdge edge = new RouteEdge("batches", "_external", "detect");
            Event bad = Event.of("Tick", Map.of("n", 3, "bad", true));
            worker.transport.publish(new OutboundMessage(edge.subject(),
                    worker.codec.encode(EventBatch.of("Ticks", List.of(tick(1), tick(2), bad, tick(4)))), "batch-1"))
                .get(5, TimeUnit.SECONDS);

            await().atMost(Duration.ofSeconds(15)).until(() -> settled(worker, edge));
            host.close();

            assertThat(applied).containsExactly(1, 2, 4);
            List<JsonNode> parked = parked(worker, edge);
            assertThat(parked).hasSize(1);
            JsonNode envelope = parked.get(0);
            assertThat(envelope.path("reason").asText()).isEqualTo("unprocessable");
            assertThat(envelope.path("last_error").asText()).isEqualTo("element 2 is bad");
            assertThat(envelope.path("parked_element").asInt()).as("its index in the batch").isEqualTo(2);
            assertThat(envelope.path("original_subject").asText()).isEqualTo(edge.subject());
            assertThat(envelope.path("message_id").asText()).isEqualTo("batch-1");
            assertThat(worker.codec.decode(envelope.path("payload").asText().getBytes()))
                .as("the element alone, replayable as a single event")
                .isEqualTo(bad);
            assertThat(worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason", "unprocessable"))
                .isEqualTo(1);
        }
    }

    @Test
    void aBatchDeliveredAgainAfterItsParkWasStoredParksTheElementOnce() throws Exception {
        List<Integer> applied = new CopyOnWriteArrayList<>();
        AtomicInteger flushes = new AtomicInteger();
        // The first apply's flush fails after its park was published: the batch is nak'ed
        // and delivered again, as
        // after a crash between the park's PubAck and the ack.
        KeyValueStateFactory failingOnce = failingFirstFlush(flushes);
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            PipelineHost host = host(worker, elements(applied), failingOnce);
            host.deploy(group("again"), "detect", KeyValueStateFactory.NO_PLACEMENT_EPOCH);
            RouteEdge edge = new RouteEdge("again", "_external", "detect");
            worker.transport
                .publish(new OutboundMessage(edge.subject(),
                        worker.codec.encode(EventBatch.of("Ticks",
                                List.of(tick(1), Event.of("Tick", Map.of("n", 2, "bad", true))))),
                        "batch-2"))
                .get(5, TimeUnit.SECONDS);

            await().atMost(Duration.ofSeconds(15)).until(() -> settled(worker, edge) && flushes.get() == 2);
            host.close();

            assertThat(applied).as("applied on both deliveries").containsExactly(1, 1);
            assertThat(parked(worker, edge)).as("the second park was the same message id, dropped as a duplicate")
                .hasSize(1);
            assertThat(worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason", "unprocessable"))
                .as("counted once, when the batch was acked")
                .isEqualTo(1);
        }
    }

    @Test
    void aRedeliveryThatParksOtherElementsTooKeepsEachParkByItsIndex() throws Exception {
        AtomicInteger flushes = new AtomicInteger();
        // Delivery 1 parks element 3; delivery 2 (after the failed flush) parks elements
        // 1 and 3. Keyed by index,
        // element 1's park is not taken for a repeat of element 3's.
        EventProcessor parksMoreTheSecondTime = (event, context) -> {
            if (context.attempt() > 1) {
                context.park(1, EventBatch.elements(event).get(1).event(), "bad on the second delivery");
            }
            context.park(3, EventBatch.elements(event).get(3).event(), "bad on every delivery");
            return List.of();
        };
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            PipelineHost host = host(worker, parksMoreTheSecondTime, failingFirstFlush(flushes));
            host.deploy(group("indexed"), "detect", KeyValueStateFactory.NO_PLACEMENT_EPOCH);
            RouteEdge edge = new RouteEdge("indexed", "_external", "detect");
            worker.transport
                .publish(new OutboundMessage(edge.subject(),
                        worker.codec.encode(EventBatch.of("Ticks", List.of(tick(0), tick(1), tick(2), tick(3)))),
                        "batch-3"))
                .get(5, TimeUnit.SECONDS);

            await().atMost(Duration.ofSeconds(15)).until(() -> settled(worker, edge) && flushes.get() == 2);
            host.close();

            assertThat(parked(worker, edge)).extracting(e -> e.path("parked_element").asInt())
                .containsExactlyInAnyOrder(1, 3);
        }
    }

    /**
     * A state in memory whose first flush fails, as a broker refusing the first apply's
     * writes would.
     */
    private static KeyValueStateFactory failingFirstFlush(AtomicInteger flushes) {
        return (group, pipeline, partition, epoch) -> new KeyValueState() {
            private final Map<String, byte[]> values = new ConcurrentHashMap<>();

            @Override
            public Optional<byte[]> get(String key) {
                return Optional.ofNullable(values.get(key));
            }

            @Override
            public void put(String key, byte[] value) {
                values.put(key, value);
            }

            @Override
            public void delete(String key) {
                values.remove(key);
            }

            @Override
            public CompletableFuture<Void> flush() {
                return flushes.incrementAndGet() == 1
                        ? CompletableFuture.failedFuture(new KeyValueState.StateException("store away", null))
                        : CompletableFuture.completedFuture(null);
            }
        };
    }

    private static boolean settled(SubstrateFixture worker, RouteEdge edge) throws Exception {
        ConsumerInfo info = worker.jsm()
            .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, DurableNames.routeConsumer("detect", edge.subject()));
        return info.getNumPending() == 0 && info.getNumAckPending() == 0 && info.getAckFloor().getStreamSequence() > 0;
    }

    private static Event tick(int n) {
        return Event.of("Tick", Map.of("n", n));
    }

    private static PipelineHost host(SubstrateFixture worker, EventProcessor processor, KeyValueStateFactory states) {
        return worker.host(processor, states);
    }

    private static PipelineGroupSpec group(String name) {
        return new PipelineGroupSpec(name,
                List.of(new PipelineGroupSpec.PipelineSpec("detect",
                        new PipelineGroupSpec.ProcessorSpec("test", Map.of()))),
                List.of(new PipelineGroupSpec.RouteSpec("_external", "detect", List.of("Ticks"))))
            .validate();
    }

    /** The envelopes parked from one edge (the tests share the server's DLQ). */
    private static List<JsonNode> parked(SubstrateFixture worker, RouteEdge edge) throws Exception {
        var state = worker.jsm().getStreamInfo(VarpulisJetStream.DLQ_STREAM).getStreamState();
        List<JsonNode> parked = new ArrayList<>();
        for (long seq = state.getFirstSequence(); seq <= state.getLastSequence() && state.getMsgCount() > 0; seq++) {
            JsonNode envelope = worker.codec.mapper()
                .readTree(worker.jsm().getMessage(VarpulisJetStream.DLQ_STREAM, seq).getData());
            if (envelope.path("original_subject").asText().equals(edge.subject())) {
                parked.add(envelope);
            }
        }
        return parked;
    }

}
