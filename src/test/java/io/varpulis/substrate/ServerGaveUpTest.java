package io.varpulis.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.Connection;
import io.nats.client.FetchConsumer;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.varpulis.container.DeliveryContainer;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.jetstream.ConsumerDeclaration;
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
import io.varpulis.transport.Delivery;
import io.varpulis.transport.GivenUpMessage;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 9, "nothing leaves silently" (issue 30): a message the server stops
 * delivering (its max_deliver reached on the server's side, here because the process that
 * held its last delivery never acked it) is parked from the stream by its sequence with
 * its death envelope ({@code server_gave_up}, the attempts, the durable), counted and
 * logged, by whichever process runs the durable's container; one the stream no longer
 * holds is counted stranded.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class ServerGaveUpTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void aMessageTheServerGaveUpIsParkedFromTheStreamBySequence(CapturedOutput output) throws Exception {
        RouteEdge edge = new RouteEdge("gaveup", "_external", "detect");
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, lastDeliveryOnly());
                Connection holder = Nats.connect(nats.url())) {
            PublishReceipt stored = publish(worker, edge, "held-1");
            heldAndNeverAcked(worker, holder, edge);
            AtomicInteger applied = new AtomicInteger();
            try (Consumption ignored = worker.ingress(edge, (event, context) -> {
                applied.incrementAndGet();
                return List.of();
            }, OutputEmitter.NONE).start(worker.transport, worker.consumer())) {
                await().atMost(Duration.ofSeconds(15))
                    .until(() -> worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason",
                            "server_gave_up") == 1);
                MessageInfo parked = worker.jsm().getLastMessage(VarpulisJetStream.DLQ_STREAM, "varpulis.dlq.detect");
                JsonNode envelope = worker.codec.mapper().readTree(parked.getData());
                assertThat(envelope.path("reason").asText()).isEqualTo("server_gave_up");
                assertThat(envelope.path("stream").asText()).isEqualTo(VarpulisJetStream.ROUTING_STREAM);
                assertThat(envelope.path("stream_sequence").asLong()).isEqualTo(stored.sequence());
                assertThat(envelope.path("durable").asText())
                    .isEqualTo(DurableNames.routeConsumer(edge.to(), edge.subject()));
                assertThat(envelope.path("attempts").asLong()).isOne();
                assertThat(envelope.path("message_id").asText()).isEqualTo("held-1");
                assertThat(envelope.path("payload").asText()).contains("SshAuthFailure");
                assertThat(parked.getHeaders().getFirst("Nats-Msg-Id"))
                    .isEqualTo("dlq:" + VarpulisJetStream.ROUTING_STREAM + ":" + stored.sequence());
                assertThat(applied).as("the server never delivered it again").hasValue(0);
                assertThat(output.getOut())
                    .contains("the server gave up on stream VARPULIS_ROUTING sequence " + stored.sequence());
                assertThat(worker.metrics.count("varpulis.events.stranded", "unit", "detect")).isZero();
            }
        }
    }

    @Test
    void aMessageTheServerGaveUpAndTheStreamNoLongerHoldsIsCountedStranded(CapturedOutput output) throws Exception {
        RouteEdge edge = new RouteEdge("gone", "_external", "detect");
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, lastDeliveryOnly());
                DeliveryContainer container = worker.ingress(edge, (event, context) -> List.of(), OutputEmitter.NONE)
                    .start(worker.transport, worker.consumer())) {
            // What the server's advisory says of a message whose max_age passed before it
            // could be read: nothing
            // nats-server does on loopback times that, so the advisory is told to the
            // container by hand.
            container.onGivenUp(new GivenUpMessage() {
                @Override
                public String stream() {
                    return VarpulisJetStream.ROUTING_STREAM;
                }

                @Override
                public String durable() {
                    return container.name();
                }

                @Override
                public long streamSequence() {
                    return 4242;
                }

                @Override
                public long deliveries() {
                    return 1;
                }

                @Override
                public Optional<Delivery> load() {
                    return Optional.empty();
                }

                @Override
                public String toString() {
                    return "stream VARPULIS_ROUTING sequence 4242";
                }
            });
            await().atMost(Duration.ofSeconds(15))
                .until(() -> worker.metrics.count("varpulis.events.stranded", "unit", "detect") == 1);
            assertThat(output.getOut()).contains("sequence 4242 without an ack, and the stream no longer holds it");
            assertThat(worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason", "server_gave_up"))
                .isZero();
        }
    }

    /**
     * max_deliver 1 and a short ack_wait: the server gives a message up as soon as its
     * one delivery expires.
     */
    private static NatsTestProperties lastDeliveryOnly() {
        NatsTestProperties properties = new NatsTestProperties();
        properties.consumer().setMaxDeliver(1);
        properties.consumer().setAckWait(Duration.ofSeconds(2));
        properties.consumer().setNakDelay(SubstrateFixture.TEST_NAK_DELAY);
        return properties;
    }

    private static PublishReceipt publish(SubstrateFixture worker, RouteEdge edge, String id) throws Exception {
        return worker.transport
            .publish(new OutboundMessage(edge.subject(),
                    worker.codec.encode(Event.of("SshAuthFailure", Map.of("src_ip", "10.0.0.9"))), id))
            .get(5, TimeUnit.SECONDS);
    }

    /**
     * Another process takes the message's one delivery on the same durable and dies with
     * it (never acks).
     */
    private static void heldAndNeverAcked(SubstrateFixture worker, Connection holder, RouteEdge edge) throws Exception {
        ConsumerDeclaration consumer = VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(),
                worker.consumer());
        worker.admin.declareConsumer(consumer);
        try (FetchConsumer fetch = holder.getStreamContext(consumer.stream())
            .getConsumerContext(consumer.durable())
            .fetchMessages(1)) {
            Message held = fetch.nextMessage();
            assertThat(held).as("the other process holds the message's only delivery").isNotNull();
        }
    }

}
