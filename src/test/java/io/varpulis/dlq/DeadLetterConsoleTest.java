package io.varpulis.dlq;

import java.util.concurrent.TimeUnit;

import java.util.concurrent.CountDownLatch;

import java.util.concurrent.CompletableFuture;

import io.varpulis.jetstream.ConsumerDeclaration;

import io.varpulis.transport.DeliveryHandler;

import io.varpulis.transport.PublishReceipt;

import io.varpulis.transport.ClusterTransport;

import io.nats.client.api.MessageInfo;
import io.varpulis.autoconfigure.DeadLetterProperties;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.pipeline.UnprocessableEventException;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The dead-letter console on a real JetStream server: list, show, replay and purge of
 * {@code VARPULIS_DLQ}.
 */
@ExtendWith(OutputCaptureExtension.class)
@BrokerTest
class DeadLetterConsoleTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Caller ALICE = new Caller("alice", "10.0.0.5");

    private SubstrateFixture node;

    private DeadLetterProperties properties;

    private DeadLetterConsole console;

    private ParkedEvents envelopes;

    @BeforeEach
    void connect() throws Exception {
        node = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
        node.jsm().purgeStream(VarpulisJetStream.DLQ_STREAM);
        properties = new DeadLetterProperties();
        properties.setWriteEnabled(true);
        console = new DeadLetterConsole(node.connection, node.transport, node.codec.mapper(), properties.toSettings());
        envelopes = new ParkedEvents(node);
    }

    @AfterEach
    void close() throws Exception {
        node.close();
    }

    @Test
    void parkedEventIsListedWithItsEnvelope_replayedToItsOriginalSubject_thenRemovedFromTheDlq() throws Exception {
        RouteEdge edge = new RouteEdge("ops1", "_external", "detect");
        AtomicBoolean fixed = new AtomicBoolean();
        List<String> applied = new CopyOnWriteArrayList<>();
        try (Consumption ignored = node.ingress(edge, (event, context) -> {
            if (!fixed.get()) {
                throw new UnprocessableEventException("detector rejects " + event.eventType());
            }
            applied.add(String.valueOf(event.fields().get("src_ip")));
            return List.of();
        }, OutputEmitter.NONE).start(node.transport, node.consumer())) {
            Event event = Event.of("SshAuthFailure", Map.of("src_ip", "10.0.0.9"));
            node.transport.publish(new OutboundMessage(edge.subject(), node.codec.encode(event), "ops1-1")).get();
            await().atMost(Duration.ofSeconds(10)).until(() -> console.list(DeadLetterQuery.all()).depth() == 1);

            DeadLetterPage page = console.list(DeadLetterQuery.of("detect", null, null, null, null));
            assertThat(page.events()).hasSize(1);
            ParkedEvent parked = page.events().get(0);
            assertThat(parked.subject()).isEqualTo("varpulis.dlq.detect");
            assertThat(parked.envelope().get("original_subject")).isEqualTo(edge.subject());
            assertThat(parked.envelope().get("reason")).isEqualTo("unprocessable");
            assertThat(parked.envelope().get("last_error")).isEqualTo("detector rejects SshAuthFailure");
            assertThat(parked.envelope().get("message_id")).isEqualTo("ops1-1");
            assertThat(console.show(parked.sequence())).isEqualTo(parked);

            fixed.set(true);
            ReplayReport report = console.replay(ReplayRequest.ofSequence(parked.sequence()), ALICE);

            assertThat(report.failed()).isEmpty();
            assertThat(report.replayed()).singleElement().satisfies(r -> {
                assertThat(r.sequence()).isEqualTo(parked.sequence());
                assertThat(r.unit()).isEqualTo("detect");
                assertThat(r.originalSubject()).isEqualTo(edge.subject());
                assertThat(r.stream()).isEqualTo(VarpulisJetStream.ROUTING_STREAM);
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> applied.size() == 1);
            assertThat(applied).containsExactly("10.0.0.9");
            assertThat(console.list(DeadLetterQuery.all()).events()).isEmpty();
            assertThatThrownBy(() -> console.show(parked.sequence())).isInstanceOf(ParkedEventNotFoundException.class);
            MessageInfo replayed = node.jsm()
                .getMessage(VarpulisJetStream.ROUTING_STREAM, report.replayed().get(0).streamSequence());
            assertThat(replayed.getHeaders().getFirst("Nats-Msg-Id"))
                .as("a fresh id: the original one may still be in the duplicate window")
                .startsWith("replay:" + parked.sequence() + ":");
        }
    }

    @Test
    void listIsNewestFirst_pagedWithACursor_andFilteredByUnit() {
        long a1 = park("enrich", "a1");
        long d1 = park("detect", "d1");
        long a2 = park("enrich", "a2");
        long a3 = park("enrich", "a3");
        long c1 = park("coordinator:c-1", "hb");

        DeadLetterPage all = console.list(DeadLetterQuery.all());
        assertThat(all.events()).extracting(ParkedEvent::sequence).containsExactly(c1, a3, a2, d1, a1);
        assertThat(all.depth()).isEqualTo(5);
        assertThat(all.nextBefore()).isNull();

        DeadLetterPage first = console.list(DeadLetterQuery.of("enrich", null, null, null, 2));
        assertThat(first.events()).extracting(ParkedEvent::sequence).containsExactly(a3, a2);
        assertThat(first.depth()).isEqualTo(3);
        assertThat(first.nextBefore()).isEqualTo(a2);
        DeadLetterPage second = console.list(DeadLetterQuery.of("enrich", null, null, first.nextBefore(), 2));
        assertThat(second.events()).extracting(ParkedEvent::sequence).containsExactly(a1);
        assertThat(second.nextBefore()).isNull();

        DeadLetterPage heartbeats = console.list(DeadLetterQuery.of("coordinator:c-1", null, null, null, null));
        assertThat(heartbeats.events()).singleElement().satisfies(e -> {
            assertThat(e.subject()).isEqualTo("varpulis.dlq.coordinator_c-1");
            assertThat(e.unit()).isEqualTo("coordinator:c-1");
        });
        assertThat(console.list(DeadLetterQuery.of("nobody", null, null, null, null)).events()).isEmpty();
    }

    @Test
    void pagingWalksTheWholeDlqOnce_andFindsARareUnitAmongManyEvents() {
        long rareOld = park("rare", "old");
        for (int i = 0; i < 250; i++) {
            park("bulk", "b" + i);
        }
        long rareNew = park("rare", "new");

        assertThat(console.list(DeadLetterQuery.of("rare", null, null, null, 10)).events())
            .extracting(ParkedEvent::sequence)
            .containsExactly(rareNew, rareOld);
        List<Long> seen = new ArrayList<>();
        Long before = null;
        do {
            DeadLetterPage page = console.list(DeadLetterQuery.of("bulk", null, null, before, 100));
            page.events().forEach(e -> seen.add(e.sequence()));
            before = page.nextBefore();
        }
        while (before != null);
        assertThat(seen).hasSize(250).doesNotHaveDuplicates().isSortedAccordingTo(Comparator.reverseOrder());
    }

    @Test
    void listIsFilteredByTheTimeEventsWereParked() throws Exception {
        long early = park("detect", "early");
        Instant between = Instant.parse(console.show(early).storedAt()).plusMillis(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(between));
        long late = park("detect", "late");

        assertThat(console.list(new DeadLetterQuery(null, between, null, null, null)).events())
            .extracting(ParkedEvent::sequence)
            .containsExactly(late);
        assertThat(console.list(new DeadLetterQuery(null, null, between, null, null)).events())
            .extracting(ParkedEvent::sequence)
            .containsExactly(early);
        assertThat(
                console.list(new DeadLetterQuery("detect", Instant.now().plusSeconds(60), null, null, null)).events())
            .isEmpty();
        assertThat(console.list(DeadLetterQuery.of(null, "0", null, null, null)).events()).hasSize(2);
        assertThatThrownBy(() -> DeadLetterQuery.of(null, "yesterday", null, null, null))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("since 'yesterday'");
    }

    @Test
    void listRefusesAPageLargerThanTheConfiguredMaximum() {
        assertThatThrownBy(() -> console.list(DeadLetterQuery.of(null, null, null, null, 501)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("varpulis.dlq.max-page-size");
        assertThatThrownBy(() -> console.list(DeadLetterQuery.of(null, null, null, null, 0)))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writeOperationsAreRefusedUnlessEnabled(CapturedOutput output) {
        long parked = park("detect", "kept");
        properties.setWriteEnabled(false);
        console = new DeadLetterConsole(node.connection, node.transport, node.codec.mapper(), properties.toSettings());

        assertThatThrownBy(() -> console.replay(ReplayRequest.ofSequence(parked), ALICE))
            .isInstanceOf(DeadLetterWritesDisabledException.class)
            .hasMessageContaining("varpulis.dlq.write-enabled=true");
        assertThatThrownBy(() -> console.replay(ReplayRequest.ofAll(), Caller.anonymous()))
            .isInstanceOf(DeadLetterWritesDisabledException.class);
        assertThatThrownBy(() -> console.purge(parked, ALICE)).isInstanceOf(DeadLetterWritesDisabledException.class);
        assertThatThrownBy(() -> console.purgeUnit("detect", new Caller(null, "10.0.0.7")))
            .isInstanceOf(DeadLetterWritesDisabledException.class);

        assertThat(console.show(parked).sequence()).isEqualTo(parked);
        assertThat(output)
            .contains("audit: alice: refused: DLQ replay sequence " + parked + ": varpulis.dlq."
                    + "write-enabled is false")
            .contains("audit: anonymous: refused: DLQ replay all")
            .contains("audit: anonymous@10.0.0.7: refused: DLQ purge unit detect");
    }

    @Test
    void everyWriteLogsAnAuditLineWithWhoWhatAndHowMany(CapturedOutput output) {
        park("enrich", "e1");
        park("enrich", "e2");
        long other = park("detect", "d1");

        console.replay(ReplayRequest.ofUnit("enrich"), ALICE);
        console.purge(other, new Caller(null, "10.0.0.7"));

        assertThat(output).contains("audit: alice: DLQ replay unit enrich: 2 replayed, 0 failed")
            .contains("audit: anonymous@10.0.0.7: DLQ purge sequence " + other + ": 1 purged");
    }

    @Test
    void replayThatIsNotConfirmedLeavesTheEventParked() {
        long unstorable = park("detect", "varpulis.nowhere.detect", "lost?".getBytes(StandardCharsets.UTF_8));
        long after = park("detect", "after");

        ReplayReport report = console.replay(ReplayRequest.ofUnit("detect"), ALICE);

        assertThat(report.replayed()).isEmpty();
        assertThat(report.failed()).singleElement().satisfies(f -> {
            assertThat(f.sequence()).isEqualTo(unstorable);
            assertThat(f.error()).contains("varpulis.nowhere.detect").contains("not confirmed").contains("left parked");
        });
        assertThat(report.stopped()).contains("sequence " + unstorable);
        assertThat(console.list(DeadLetterQuery.all()).events()).extracting(ParkedEvent::sequence)
            .as("the unconfirmed event and the ones after it stay parked, in order")
            .containsExactly(after, unstorable);
    }

    @Test
    void replayByUnitRepublishesOldestFirst_andLeavesOtherUnitsParked() throws Exception {
        park("enrich", "first");
        long detect = park("detect", "other unit");
        park("enrich", "second");
        park("enrich", "third");

        ReplayReport report = console.replay(ReplayRequest.ofUnit("enrich"), ALICE);

        assertThat(report.replayedCount()).isEqualTo(3);
        assertThat(report.more()).isFalse();
        List<String> republished = new ArrayList<>();
        for (ReplayReport.Replayed r : report.replayed()) {
            MessageInfo message = node.jsm().getMessage(r.stream(), r.streamSequence());
            republished.add(new String(message.getData(), StandardCharsets.UTF_8));
        }
        assertThat(republished).containsExactly(payload("first"), payload("second"), payload("third"));
        assertThat(console.list(DeadLetterQuery.all()).events()).extracting(ParkedEvent::sequence)
            .containsExactly(detect);
    }

    @Test
    void replayOfAPayloadThatIsNotUtf8PublishesTheOriginalBytes() throws Exception {
        byte[] binary = { (byte) 0xff, (byte) 0xfe, 0x00, 0x41 };
        long parked = park("detect", new RouteEdge("ops2", "_external", "detect").subject(), binary);
        assertThat(console.show(parked).envelope().containsKey("payload_base64")).isTrue();

        ReplayReport report = console.replay(ReplayRequest.ofSequence(parked), ALICE);

        ReplayReport.Replayed replayed = report.replayed().get(0);
        assertThat(node.jsm().getMessage(replayed.stream(), replayed.streamSequence()).getData()).isEqualTo(binary);
    }

    @Test
    void replayAllStopsAtTheBatchLimitAndSaysMoreAreLeft() {
        properties.setMaxReplayBatch(2);
        console = new DeadLetterConsole(node.connection, node.transport, node.codec.mapper(), properties.toSettings());
        park("enrich", "1");
        park("detect", "2");
        long third = park("enrich", "3");

        ReplayReport report = console.replay(ReplayRequest.ofAll(), ALICE);

        assertThat(report.replayedCount()).isEqualTo(2);
        assertThat(report.more()).isTrue();
        assertThat(console.list(DeadLetterQuery.all()).events()).extracting(ParkedEvent::sequence)
            .containsExactly(third);
        assertThat(console.replay(ReplayRequest.ofAll(), ALICE).more()).isFalse();
        assertThat(console.list(DeadLetterQuery.all()).depth()).isZero();
    }

    @Test
    void replayIntoAStillBrokenPipelineEnds_andTheEventIsParkedAgain() throws Exception {
        RouteEdge edge = new RouteEdge("ops3", "_external", "detect");
        try (Consumption ignored = node.ingress(edge, (event, context) -> {
            throw new UnprocessableEventException("still broken");
        }, OutputEmitter.NONE).start(node.transport, node.consumer())) {
            node.transport
                .publish(new OutboundMessage(edge.subject(), node.codec.encode(Event.of("SshAuthFailure", Map.of())),
                        null))
                .get();
            await().atMost(Duration.ofSeconds(10)).until(() -> console.list(DeadLetterQuery.all()).depth() == 1);
            long first = console.list(DeadLetterQuery.all()).events().get(0).sequence();

            ReplayReport report = console.replay(ReplayRequest.ofAll(), ALICE);

            assertThat(report.replayedCount()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> console.list(DeadLetterQuery.all()).depth() == 1);
            assertThat(console.list(DeadLetterQuery.all()).events().get(0).sequence()).isGreaterThan(first);
        }
    }

    @Test
    void purgeDeletesOneEventBySequence_orEveryEventOfAUnit() {
        long d1 = park("detect", "d1");
        park("enrich", "e1");
        park("enrich", "e2");
        long d2 = park("detect", "d2");

        assertThat(console.purge(d1, ALICE)).isEqualTo(new PurgeReport("sequence " + d1, 1));
        assertThat(console.purgeUnit("enrich", ALICE)).isEqualTo(new PurgeReport("unit enrich", 2));

        assertThat(console.list(DeadLetterQuery.all()).events()).extracting(ParkedEvent::sequence).containsExactly(d2);
        assertThatThrownBy(() -> console.purge(d1, ALICE)).isInstanceOf(ParkedEventNotFoundException.class)
            .hasMessageContaining("sequence " + d1);
        assertThatThrownBy(() -> console.purgeUnit(" ", ALICE)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void replayRequestNamesExactlyOneTarget() {
        assertThatThrownBy(() -> console.replay(new ReplayRequest(null, null, null), ALICE))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("exactly one");
        assertThatThrownBy(() -> console.replay(new ReplayRequest(1L, "detect", null), ALICE))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> console.replay(ReplayRequest.ofSequence(999_999), ALICE))
            .isInstanceOf(ParkedEventNotFoundException.class);
    }

    @Test
    void aPurgeOfAnEventAReplayIsPublishingIsRefusedAtOnce_andOtherPurgesNeverWaitForTheReplay() throws Exception {
        long first = park("slowreplay", "a");
        long other = park("slowreplay", "b");
        CompletableFuture<PublishReceipt> pubAck = new CompletableFuture<>();
        CountDownLatch publishing = new CountDownLatch(1);
        ClusterTransport waiting = new ClusterTransport() {
            @Override
            public Substrate substrate() {
                return Substrate.JETSTREAM;
            }

            @Override
            public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
                publishing.countDown();
                return pubAck;
            }

            @Override
            public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close() {
            }
        };
        DeadLetterConsole slow = new DeadLetterConsole(node.connection, waiting, node.codec.mapper(),
                properties.toSettings());
        CompletableFuture<ReplayReport> replay = CompletableFuture
            .supplyAsync(() -> slow.replay(ReplayRequest.ofSequence(first), ALICE));
        assertThat(publishing.await(10, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> slow.purge(first, ALICE)).isInstanceOf(DeadLetterBusyException.class)
            .hasMessageContaining("sequence " + first + " is being replayed");
        assertThat(slow.purge(other, ALICE).purged()).as("no lock held while the replay waits for its PubAck")
            .isEqualTo(1);

        pubAck.complete(new PublishReceipt("varpulis.cluster.pipeline.ops._external.slowreplay",
                VarpulisJetStream.ROUTING_STREAM, 1, false));
        assertThat(replay.get(10, TimeUnit.SECONDS).replayed()).hasSize(1);
    }

    private long park(String unit, String text) {
        return envelopes.park(unit, text);
    }

    private long park(String unit, String originalSubject, byte[] payload) {
        return envelopes.park(unit, originalSubject, payload);
    }

    private static String payload(String text) {
        return ParkedEvents.payload(text);
    }

}
