package io.varpulis.dlq;

import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.api.MessageInfo;
import io.varpulis.autoconfigure.DeadLetterProperties;
import io.varpulis.VarpulisClusterApplication;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestCredentials;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Nothing is stranded for its size, and no answer is unbounded (SPEC sections 4 and 10):
 * an event too large for the JSON death envelope is parked in the raw form and shown and
 * replayed like any other; a page of the DLQ stays within its byte budget, cuts long
 * payloads, and says how to get the rest.
 */
@BrokerTest
class DeadLetterSizeTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Caller ALICE = new Caller("alice", "10.0.0.5");

    private SubstrateFixture node;

    private DeadLetterProperties properties;

    private DeadLetterConsole console;

    @BeforeEach
    void connect() throws Exception {
        node = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
        node.jsm().purgeStream(VarpulisJetStream.DLQ_STREAM);
        properties = new DeadLetterProperties();
        properties.setWriteEnabled(true);
        console = new DeadLetterConsole(node.connection, node.transport, node.codec.mapper(), properties.toSettings());
    }

    @AfterEach
    void close() throws Exception {
        node.close();
    }

    @Test
    void a900KbBinaryEventIsParkedInTheRawForm_shownLikeAnyOther_andReplayedByteForByte() throws Exception {
        RouteEdge edge = new RouteEdge("big", "_external", "detect");
        byte[] binary = random(900 * 1024);
        assertThat(Base64.getEncoder().encodeToString(binary).length())
            .as("its base64 envelope would be over the default 1 MB max_payload")
            .isGreaterThan((int) node.connection.getMaxPayload());
        Consumption ingress = node.ingress(edge, (event, context) -> List.of(), OutputEmitter.NONE)
            .start(node.transport, node.consumer());
        try {
            node.transport.publish(new OutboundMessage(edge.subject(), binary, "big-1")).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(15))
                .until(() -> node.metrics.count("varpulis.events.parked", "unit", "detect", "reason",
                        "undecodable") == 1);
        }
        finally {
            ingress.close();
        }
        assertThat(node.metrics.count("varpulis.events.stranded", "unit", "detect")).isZero();

        ParkedEvent parked = console.list(DeadLetterQuery.all()).events().get(0);
        MessageInfo stored = node.jsm().getMessage(VarpulisJetStream.DLQ_STREAM, parked.sequence());
        assertThat(stored.getData()).as("the original bytes verbatim").isEqualTo(binary);
        assertThat(stored.getHeaders().getFirst("Varpulis-Dlq-Original-Subject")).isEqualTo(edge.subject());

        assertThat(parked.form()).isEqualTo(ParkedEvent.FORM_HEADERS);
        assertThat(parked.payloadBytes()).isEqualTo(binary.length);
        assertThat(parked.payloadTruncated()).as("cut in a list page").isTrue();
        assertThat(parked.envelope()).containsEntry("original_subject", edge.subject())
            .containsEntry("unit", "detect")
            .containsEntry("reason", "undecodable")
            .containsEntry("stream", VarpulisJetStream.ROUTING_STREAM)
            .containsEntry("message_id", "big-1")
            .containsKeys("dead_at", "attempts", "stream_sequence", "last_error", "error_class");
        ParkedEvent whole = console.show(parked.sequence());
        assertThat(whole.payloadTruncated()).isNull();
        DeathEnvelope envelope = node.codec.mapper().convertValue(whole.envelope(), DeathEnvelope.class);
        assertThat(envelope.originalPayload()).isEqualTo(binary);

        ReplayReport report = console.replay(ReplayRequest.ofSequence(parked.sequence()), ALICE);
        assertThat(report.failed()).isEmpty();
        ReplayReport.Replayed replayed = report.replayed().get(0);
        assertThat(replayed.originalSubject()).isEqualTo(edge.subject());
        assertThat(node.jsm().getMessage(replayed.stream(), replayed.streamSequence()).getData()).isEqualTo(binary);
        assertThat(console.list(DeadLetterQuery.all()).depth()).isZero();
    }

    @Test
    void anEventNearMaxPayloadIsParkedWithTheHeadersThatFit_andCanStillBeReplayed() throws Exception {
        RouteEdge edge = new RouteEdge("near", "_external", "detect");
        byte[] binary = random((int) node.connection.getMaxPayload() - 300);
        try (Consumption ignored = node.ingress(edge, (event, context) -> List.of(), OutputEmitter.NONE)
            .start(node.transport, node.consumer())) {
            node.transport.publish(new OutboundMessage(edge.subject(), binary, "near-1")).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(15))
                .until(() -> node.metrics.count("varpulis.events.parked", "unit", "detect", "reason",
                        "undecodable") == 1);
        }
        ParkedEvent parked = console.show(console.list(DeadLetterQuery.all()).events().get(0).sequence());
        assertThat(parked.form()).isEqualTo(ParkedEvent.FORM_HEADERS);
        assertThat(parked.envelope()).containsEntry("original_subject", edge.subject())
            .containsEntry("unit", "detect")
            .containsEntry("reason", "undecodable");
        assertThat(node.codec.mapper().convertValue(parked.envelope(), DeathEnvelope.class).originalPayload())
            .isEqualTo(binary);
        assertThat(console.replay(ReplayRequest.ofSequence(parked.sequence()), ALICE).failed()).isEmpty();
    }

    /**
     * One element of a batch parked alone whose envelope would not fit: 450 000 quotes
     * are 900 KB of element JSON ({@code \"} each), which fit the routing stream in their
     * batch, and 1.8 MB once escaped again in the envelope's payload. It is parked in the
     * raw form, the element as the body, on the first delivery; the batch is acked once.
     */
    @Test
    void anElementWhoseEnvelopeWouldNotFitIsParkedAloneInTheRawForm_andTheBatchAckedOnce() throws Exception {
        RouteEdge edge = new RouteEdge("bigelement", "_external", "detect");
        Event element = Event.of("Tick", Map.of("text", "\"".repeat(450_000)));
        byte[] batch = node.codec.encode(EventBatch.of("Ticks", List.of(element)));
        assertThat(batch.length).as("the batch fits the routing stream")
            .isLessThan((int) node.connection.getMaxPayload());
        try (Consumption ignored = node.ingress(edge, (event, context) -> {
            context.park(0, EventBatch.elements(event).get(0).event(), "too many quotes");
            return List.of();
        }, OutputEmitter.NONE).start(node.transport, node.consumer())) {
            node.transport.publish(new OutboundMessage(edge.subject(), batch, "quotes-1")).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(15))
                .until(() -> node.metrics.count("varpulis.events.parked", "unit", "detect", "reason",
                        "unprocessable") == 1);
            await().atMost(Duration.ofSeconds(5))
                .until(() -> node.jsm()
                    .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM,
                            DurableNames.routeConsumer("detect", edge.subject()))
                    .getNumAckPending() == 0);
        }
        assertThat(node.metrics.count("varpulis.events.redelivered", "pipeline", "detect"))
            .as("parked on the first delivery, not failed five times")
            .isZero();

        ParkedEvent parked = console.show(console.list(DeadLetterQuery.all()).events().get(0).sequence());
        assertThat(parked.form()).isEqualTo(ParkedEvent.FORM_HEADERS);
        assertThat(parked.envelope()).containsEntry("original_subject", edge.subject())
            .containsEntry("reason", "unprocessable")
            .containsEntry("message_id", "quotes-1")
            .containsEntry("parked_element", 0)
            .containsEntry("last_error", "too many quotes");
        byte[] body = node.jsm().getMessage(VarpulisJetStream.DLQ_STREAM, parked.sequence()).getData();
        assertThat(node.codec.decode(body)).as("the element alone, as the body").isEqualTo(element);

        ReplayReport report = console.replay(ReplayRequest.ofSequence(parked.sequence()), ALICE);
        assertThat(report.failed()).isEmpty();
        ReplayReport.Replayed replayed = report.replayed().get(0);
        assertThat(node.codec.decode(node.jsm().getMessage(replayed.stream(), replayed.streamSequence()).getData()))
            .as("replayed as a single event")
            .isEqualTo(element);
    }

    /**
     * An element a processor parks that takes all of max_payload on its own (it made it,
     * it is not the batch's): it would fit as a body, but not with the original subject
     * and message id a replay and the dedup of a redelivery need, so it is not parked
     * headless; the batch fails, and on its last delivery it is parked whole, in its own
     * envelope.
     */
    @Test
    void anElementWithNoRoomForItsHeadersFailsItsBatch_whichIsParkedWholeOnItsLastDelivery() throws Exception {
        RouteEdge edge = new RouteEdge("hugeelement", "_external", "detect");
        int overhead = node.codec.encode(Event.of("Tick", Map.of("text", ""))).length;
        Event huge = Event.of("Tick",
                Map.of("text", "a".repeat((int) node.connection.getMaxPayload() - 40 - overhead)));
        assertThat(node.codec.encode(huge).length).as("it fits as a body, 40 bytes to spare")
            .isEqualTo((int) node.connection.getMaxPayload() - 40);
        byte[] batch = node.codec.encode(EventBatch.of("Ticks", List.of(Event.of("Tick", Map.of("n", 1)))));
        try (Consumption ignored = node.ingress(edge, (event, context) -> {
            context.park(0, huge, "made too large");
            return List.of();
        }, OutputEmitter.NONE).start(node.transport, node.consumer())) {
            node.transport.publish(new OutboundMessage(edge.subject(), batch, "huge-1")).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                .until(() -> node.metrics.count("varpulis.events.parked", "unit", "detect", "reason",
                        "max_deliver") == 1);
        }
        List<ParkedEvent> parked = console.list(DeadLetterQuery.all()).events();
        assertThat(parked).hasSize(1);
        ParkedEvent whole = console.show(parked.get(0).sequence());
        assertThat(whole.form()).isEqualTo(ParkedEvent.FORM_JSON);
        assertThat(whole.envelope()).containsEntry("original_subject", edge.subject())
            .containsEntry("message_id", "huge-1")
            .doesNotContainKey("parked_element");
        assertThat(node.codec.mapper().convertValue(whole.envelope(), DeathEnvelope.class).originalPayload())
            .isEqualTo(batch);
        assertThat(node.metrics.count("varpulis.events.parked", "unit", "detect", "reason", "unprocessable"))
            .as("no headless element park")
            .isZero();
    }

    @Test
    void aPageOf500LargeParkedEventsStaysWithinItsByteBudget_cutsPayloads_andSaysHowToGetTheRest() throws Exception {
        String large = parkLarge(500);

        DeadLetterPage page = console.list(DeadLetterQuery.of(null, null, null, null, 500));

        long budget = properties.getMaxPageBytes().toBytes();
        assertThat(node.codec.mapper().writeValueAsBytes(page).length).isLessThanOrEqualTo((int) budget + 1024);
        assertThat(page.pageBytes()).isLessThanOrEqualTo(budget);
        assertThat(page.events()).hasSizeBetween(10, 499);
        assertThat(page.nextBefore()).isEqualTo(page.events().get(page.events().size() - 1).sequence());
        assertThat(page.note()).contains("varpulis.dlq.max-page-bytes").contains("before=" + page.nextBefore());
        assertThat(page.events()).allSatisfy(e -> {
            assertThat(e.payloadTruncated()).isTrue();
            assertThat(e.payloadBytes()).isGreaterThanOrEqualTo(100 * 1024);
            assertThat(e.envelope().get("payload").toString()).hasSize(64 * 1024);
        });
        ParkedEvent newest = console.show(page.events().get(0).sequence());
        assertThat(newest.envelope().get("payload").toString()).isEqualTo(large + 499);

        List<Long> seen = new ArrayList<>();
        Long before = null;
        do {
            DeadLetterPage next = console.list(DeadLetterQuery.of(null, null, null, before, 500));
            assertThat(next.pageBytes()).isLessThanOrEqualTo(budget);
            next.events().forEach(e -> seen.add(e.sequence()));
            before = next.nextBefore();
        }
        while (before != null);
        assertThat(seen).hasSize(500).doesNotHaveDuplicates();
    }

    @Test
    void theClusterApiAnswersAPageOf500LargeEventsWithinItsBudget_andOneEventWhole() throws Exception {
        String large = parkLarge(500);
        try (ConfigurableApplicationContext coordinator = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.role=coordinator", "varpulis.cluster.coordinator-id=dlq-size",
                    "varpulis.dlq.max-page-bytes=2MB", "spring.security.user.password=" + TestCredentials.PASSWORD)
            .run()) {
            int port = coordinator.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> page = http
                .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/cluster/dlq?limit=500"))
                    .header("Authorization", TestCredentials.adminBasic())
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body().length()).isLessThanOrEqualTo(2 * 1024 * 1024 + 1024);
            JsonNode body = node.codec.mapper().readTree(page.body());
            assertThat(body.path("note").asText()).contains("max-page-bytes");
            long newest = body.path("events").get(0).path("sequence").asLong();
            HttpResponse<String> one = http
                .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/cluster/dlq/" + newest))
                    .header("Authorization", TestCredentials.adminBasic())
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(node.codec.mapper().readTree(one.body()).path("envelope").path("payload").asText())
                .isEqualTo(large + 499);
        }
    }

    /**
     * Parks {@code count} JSON envelopes of about 100 KB each; returns their payload's
     * common prefix.
     */
    private String parkLarge(int count) throws Exception {
        String large = "x".repeat(100 * 1024);
        List<CompletableFuture<?>> parks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            DeathEnvelope envelope = new DeathEnvelope(new RouteEdge("ops", "_external", "detect").subject(), "detect",
                    5, Instant.now().getEpochSecond(), "boom", large + i, null, "max_deliver",
                    IllegalStateException.class.getName(), VarpulisJetStream.ROUTING_STREAM, (long) i, null, null);
            parks.add(node.transport.publish(new OutboundMessage(DurableNames.dlqSubject("detect"),
                    node.codec.mapper().writeValueAsBytes(envelope), null)));
        }
        CompletableFuture.allOf(parks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        return large;
    }

    private static byte[] random(int size) {
        byte[] bytes = new byte[size];
        new Random(42).nextBytes(bytes);
        // Make sure it is not valid UTF-8, whatever the random bytes.
        bytes[0] = (byte) 0xff;
        return bytes;
    }

}
