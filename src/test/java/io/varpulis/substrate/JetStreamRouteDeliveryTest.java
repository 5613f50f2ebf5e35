package io.varpulis.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.MessageInfo;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 8, behaviours 1, 3, 4 and 5, and the emit-before-ack rule, on a real
 * JetStream server.
 */
@BrokerTest
class JetStreamRouteDeliveryTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Event SSH_FAILURE = new Event("SshAuthFailure", Instant.parse("2026-11-30T12:00:00Z"),
            Map.of("src_ip", "10.0.0.9", "user", "root"));

    @Test
    void eventRoutedWhileItsPipelineIsDownIsAppliedWhenItIsBack_andNotRedeliveredAfterItsAck() throws Exception {
        RouteEdge edge = new RouteEdge("b1", "_external", "detect");
        try (SubstrateFixture publisher = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            PublishReceipt receipt = publisher.transport
                .publish(new OutboundMessage(edge.subject(), publisher.codec.encode(SSH_FAILURE), null))
                .get();
            assertThat(receipt.stored()).isTrue();
            assertThat(receipt.stream()).isEqualTo(VarpulisJetStream.ROUTING_STREAM);
        }
        List<Event> applied = new CopyOnWriteArrayList<>();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                Consumption ignored = worker.ingress(edge, collect(applied), OutputEmitter.NONE)
                    .start(worker.transport, worker.consumer())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> applied.size() == 1);
            assertThat(applied.get(0)).isEqualTo(SSH_FAILURE);
            await().atMost(Duration.ofSeconds(5)).until(() -> consumer(worker, edge).getNumAckPending() == 0);
        }
        List<Event> afterRestart = new CopyOnWriteArrayList<>();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                Consumption ignored = worker.ingress(edge, collect(afterRestart), OutputEmitter.NONE)
                    .start(worker.transport, worker.consumer())) {
            await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(afterRestart).as("an acked event is not delivered again").isEmpty());
            ConsumerInfo info = consumer(worker, edge);
            assertThat(info.getNumPending()).isZero();
            assertThat(info.getDelivered().getConsumerSequence()).isEqualTo(1);
        }
    }

    @Test
    void deliveryNotAckedBecauseTheProcessDiedMidApplyComesBackAsAttempt2() throws Exception {
        RouteEdge edge = new RouteEdge("b3", "_external", "detect");
        CountDownLatch applying = new CountDownLatch(1);
        SubstrateFixture dying = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
        dying.properties.consumer().setAckWait(Duration.ofSeconds(1));
        dying.ingress(edge, (event, context) -> {
            applying.countDown();
            Thread.sleep(60_000);
            return List.of();
        }, OutputEmitter.NONE).start(dying.transport, dying.consumer());
        dying.transport.publish(new OutboundMessage(edge.subject(), dying.codec.encode(SSH_FAILURE), "b3-1")).get();
        assertThat(applying.await(10, TimeUnit.SECONDS)).isTrue();
        dying.connection.close();

        List<Long> attempts = new CopyOnWriteArrayList<>();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                Consumption ignored = worker.ingress(edge, (event, context) -> {
                    attempts.add(context.attempt());
                    return List.of();
                }, OutputEmitter.NONE).start(worker.transport, worker.consumer())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> !attempts.isEmpty());
            assertThat(attempts).containsExactly(2L);
            assertThat(worker.metrics.count("varpulis.events.redelivered", "pipeline", "detect")).isEqualTo(1);
        }
    }

    @Test
    void poisonEventIsParkedAfterFiveDeliveriesWithItsDeathEnvelope_andNotDeliveredAgain() throws Exception {
        RouteEdge edge = new RouteEdge("b4", "_external", "detect");
        AtomicInteger deliveries = new AtomicInteger();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                Consumption ignored = worker.ingress(edge, (event, context) -> {
                    deliveries.incrementAndGet();
                    throw new IllegalStateException("detector state store unavailable");
                }, OutputEmitter.NONE).start(worker.transport, worker.consumer())) {
            byte[] payload = worker.codec.encode(SSH_FAILURE);
            PublishReceipt original = worker.transport.publish(new OutboundMessage(edge.subject(), payload, null))
                .get();

            await().atMost(Duration.ofSeconds(15)).until(() -> dlqDepth(worker) == 1);
            await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .untilAsserted(
                        () -> assertThat(deliveries).as("max_deliver is 5, and a parked event is not delivered again")
                            .hasValue(5));

            JsonNode envelope = lastParked(worker, "detect");
            assertThat(envelope.get("original_subject").asText()).isEqualTo(edge.subject());
            assertThat(envelope.get("unit").asText()).isEqualTo("detect");
            assertThat(envelope.get("attempts").asLong()).isEqualTo(5);
            assertThat(envelope.get("dead_at").asLong()).isCloseTo(Instant.now().getEpochSecond(),
                    org.assertj.core.data.Offset.offset(30L));
            assertThat(envelope.get("last_error").asText()).isEqualTo("detector state store unavailable");
            assertThat(envelope.get("payload").asText()).isEqualTo(new String(payload, StandardCharsets.UTF_8));
            assertThat(envelope.get("reason").asText()).isEqualTo("max_deliver");
            assertThat(envelope.get("stream_sequence").asLong()).isEqualTo(original.sequence());

            ConsumerInfo info = consumer(worker, edge);
            assertThat(info.getNumAckPending()).as("the original was acked after the park").isZero();
            assertThat(info.getNumPending()).isZero();
            assertThat(worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason", "max_deliver"))
                .isEqualTo(1);
        }
    }

    @Test
    void undecodablePayloadIsParkedOnItsFirstDelivery_withNonUtf8BytesKeptAsBase64() throws Exception {
        RouteEdge edge = new RouteEdge("b5", "_external", "detect");
        AtomicInteger applied = new AtomicInteger();
        byte[] garbage = { (byte) 0xff, (byte) 0xfe, 'n', 'o', 't', ' ', 'j', 's', 'o', 'n' };
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                Consumption ignored = worker.ingress(edge, (event, context) -> {
                    applied.incrementAndGet();
                    return List.of();
                }, OutputEmitter.NONE).start(worker.transport, worker.consumer())) {
            long before = dlqDepth(worker);
            worker.transport.publish(new OutboundMessage(edge.subject(), garbage, null)).get();
            worker.transport.publish(OutboundMessage.of(edge.subject(), "{\"fields\": {}}")).get();

            await().atMost(Duration.ofSeconds(10)).until(() -> dlqDepth(worker) == before + 2);
            assertThat(applied).hasValue(0);
            List<JsonNode> parked = parked(worker, "detect");
            // The two are parked concurrently: find each by what it carries, not by its
            // place in the DLQ.
            List<JsonNode> lastTwo = parked.subList(parked.size() - 2, parked.size());
            JsonNode binary = lastTwo.stream().filter(e -> e.has("payload_base64")).findFirst().orElseThrow();
            assertThat(binary.get("attempts").asLong()).isEqualTo(1);
            assertThat(binary.get("reason").asText()).isEqualTo("undecodable");
            assertThat(binary.has("payload")).isFalse();
            assertThat(Base64.getDecoder().decode(binary.get("payload_base64").asText())).isEqualTo(garbage);
            JsonNode noType = lastTwo.stream().filter(e -> e.has("payload")).findFirst().orElseThrow();
            assertThat(noType.get("payload").asText()).isEqualTo("{\"fields\": {}}");
            assertThat(noType.get("last_error").asText()).contains("event_type");
            assertThat(consumer(worker, edge).getNumAckPending()).isZero();
        }
    }

    @Test
    void outputsAreStoredBeforeTheInputIsAcked_andAnOutputTheStreamRefusesNaksTheInput() throws Exception {
        RouteEdge edge = new RouteEdge("emit", "_external", "detect");
        RouteEdge next = new RouteEdge("emit", "detect", "alerts");
        AtomicInteger attempts = new AtomicInteger();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            OutputEmitter refusedThenStored = (outputs, input) -> {
                // First attempt: the stream refuses the output (its expected last
                // sequence is wrong), so no PubAck
                // confirms it. (A subject no stream captures is no responders: the broker
                // being away, which the
                // ingress waits out without a nak; see BrokerOutageTest.)
                return CompletableFuture.allOf(outputs.stream().map(o -> {
                    OutboundMessage message = new OutboundMessage(next.subject(), worker.codec.encode(o),
                            input.messageId() + "/0");
                    return worker.transport
                        .publish(input.attempt() == 1 ? message.expectingLastSequence(Long.MAX_VALUE / 2) : message);
                }).toArray(CompletableFuture[]::new));
            };
            EventProcessor detect = (event, context) -> {
                attempts.incrementAndGet();
                return List.of(Event.of("BruteForceSuspected", Map.of("src_ip", "10.0.0.9")));
            };
            try (Consumption ignored = worker.ingress(edge, detect, refusedThenStored)
                .start(worker.transport, worker.consumer())) {
                worker.transport
                    .publish(OutboundMessage.of(edge.subject(),
                            new String(worker.codec.encode(SSH_FAILURE), StandardCharsets.UTF_8)))
                    .get();
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> consumer(worker, edge).getNumAckPending() == 0 && attempts.get() == 2);
                MessageInfo output = worker.jsm().getLastMessage(VarpulisJetStream.ROUTING_STREAM, next.subject());
                assertThat(worker.codec.decode(output.getData()).eventType()).isEqualTo("BruteForceSuspected");
                assertThat(worker.metrics.count("varpulis.events.applied", "pipeline", "detect")).isEqualTo(1);
            }
        }
    }

    private static EventProcessor collect(List<Event> applied) {
        return (event, context) -> {
            applied.add(event);
            return List.of();
        };
    }

    private static ConsumerInfo consumer(SubstrateFixture fixture, RouteEdge edge) throws Exception {
        return fixture.jsm()
            .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, DurableNames.routeConsumer(edge.to(), edge.subject()));
    }

    static long dlqDepth(SubstrateFixture fixture) throws Exception {
        return fixture.jsm().getStreamInfo(VarpulisJetStream.DLQ_STREAM).getStreamState().getMsgCount();
    }

    static JsonNode lastParked(SubstrateFixture fixture, String unit) throws Exception {
        MessageInfo info = fixture.jsm().getLastMessage(VarpulisJetStream.DLQ_STREAM, DurableNames.dlqSubject(unit));
        return JSON.readTree(info.getData());
    }

    private static List<JsonNode> parked(SubstrateFixture fixture, String unit) throws Exception {
        var state = fixture.jsm().getStreamInfo(VarpulisJetStream.DLQ_STREAM).getStreamState();
        List<JsonNode> out = new CopyOnWriteArrayList<>();
        for (long seq = state.getFirstSequence(); seq <= state.getLastSequence(); seq++) {
            MessageInfo info = fixture.jsm().getMessage(VarpulisJetStream.DLQ_STREAM, seq);
            if (info.getSubject().equals(DurableNames.dlqSubject(unit))) {
                out.add(JSON.readTree(info.getData()));
            }
        }
        return out;
    }

}
