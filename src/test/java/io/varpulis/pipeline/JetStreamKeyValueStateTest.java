package io.varpulis.pipeline;

import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.KeyValueState.StateFencedException;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;
import io.varpulis.transport.TransportSettings;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pipeline state's contract on a real server (SPEC section 9): reads see the writer's
 * own last write, writes are confirmed by a flush, every write expects the bucket's last
 * revision, a writer whose bucket another writer opened or wrote stops instead of
 * overwriting, and an open below the fence's placement epoch is refused. Reads never use
 * the direct get a replica may answer: the user here may not call
 * {@code $JS.API.DIRECT.GET}.
 */
@BrokerTest
class JetStreamKeyValueStateTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream()
        .withConfig(
                """
                        authorization { users = [
                          { user: "pipeline", password: "pipeline",
                            permissions: { publish: { allow: [">"], deny: ["$JS.API.DIRECT.GET.>"] }, subscribe: { allow: [">"] } } }
                          { user: "operator", password: "operator" }
                        ] }
                        """);

    private static final JetStreamKeyValueState.Settings SETTINGS = new JetStreamKeyValueState.Settings(
            Duration.ofHours(1), 1, Duration.ofSeconds(2), 100_000);

    private final List<AutoCloseable> opened = new ArrayList<>();

    private Connection connection;

    private Connection operator;

    private ClusterTransport transport;

    private String bucket;

    @BeforeEach
    void connect() throws Exception {
        connection = connect(nats, "pipeline");
        operator = connect(nats, "operator");
        transport = transport(connection);
        bucket = "varpulis_state_test_" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
        transport.close();
        connection.close();
        operator.close();
    }

    @Test
    void readsSeeTheWritersOwnLastWriteAtOnce_andTheFlushConfirmsItIsStored() throws Exception {
        JetStreamKeyValueState state = open(1);
        state.put("bf.1.a", bytes("1"));
        state.put("bf.1.a", bytes("2"));
        state.put("bf.1.b", bytes("x"));
        state.delete("bf.1.b");

        assertThat(text(state.get("bf.1.a").orElseThrow())).isEqualTo("2");
        assertThat(state.get("bf.1.b")).isEmpty();
        state.flush().get(5, TimeUnit.SECONDS);

        KeyValue kv = operator.keyValue(bucket);
        assertThat(text(kv.get("bf.1.a").getValue())).isEqualTo("2");
        assertThat(kv.get("bf.1.b")).isNull();
        assertThat(kv.keys()).as("the fence is not a key other clients see").containsExactly("bf.1.a");
    }

    @Test
    void readFromLeaderGivesTheLastValue_andNothingForAKeyDeletedOrPurgedLast() throws Exception {
        JetStreamKeyValueState state = open(1);
        state.put("window.kept", bytes("1"));
        state.put("window.deleted", bytes("2"));
        state.put("window.purged", bytes("3"));
        state.flush().get(5, TimeUnit.SECONDS);
        KeyValue kv = operator.keyValue(bucket);
        kv.delete("window.deleted");
        kv.purge("window.purged");

        assertThat(JetStreamKeyValueState.readFromLeader(operator, bucket, "window.kept", Duration.ofSeconds(2)))
            .map(JetStreamKeyValueStateTest::text)
            .contains("1");
        assertThat(JetStreamKeyValueState.readFromLeader(operator, bucket, "window.deleted", Duration.ofSeconds(2)))
            .isEmpty();
        assertThat(JetStreamKeyValueState.readFromLeader(operator, bucket, "window.purged", Duration.ofSeconds(2)))
            .isEmpty();
        assertThat(JetStreamKeyValueState.readFromLeader(operator, bucket, "window.never", Duration.ofSeconds(2)))
            .isEmpty();
    }

    @Test
    void keysWrittenBeforeAreReadFromTheStreamLeader_notFromADirectGet() throws Exception {
        JetStreamKeyValueState first = open(1);
        first.put("window.a", bytes("seen"));
        first.flush().get(5, TimeUnit.SECONDS);
        first.close();

        JetStreamKeyValueState successor = open(1);
        assertThat(text(successor.get("window.a").orElseThrow())).isEqualTo("seen");
        assertThat(successor.get("window.absent")).isEmpty();
        assertThatThrownBy(() -> connection.keyValue(bucket).get("window.a"))
            .as("jnats' own get uses the direct get, which this user may not call")
            .isInstanceOf(Exception.class);
    }

    @Test
    void aKeyEvictedFromTheCacheIsReadAgainFromTheBucket() throws Exception {
        JetStreamKeyValueState state = JetStreamKeyValueState.open(connection, transport, bucket, 1,
                new JetStreamKeyValueState.Settings(Duration.ofHours(1), 1, Duration.ofSeconds(2), 2),
                TestThreads.states());
        opened.add(state);
        for (int i = 0; i < 5; i++) {
            state.put("k" + i, bytes("v" + i));
        }
        state.flush().get(5, TimeUnit.SECONDS);

        for (int i = 0; i < 5; i++) {
            assertThat(text(state.get("k" + i).orElseThrow())).isEqualTo("v" + i);
        }
    }

    @Test
    void aWriteTheWriterDidNotMakeFencesIt_itStopsInsteadOfOverwriting() throws Exception {
        JetStreamKeyValueState state = open(1);
        state.put("count", bytes("1"));
        state.flush().get(5, TimeUnit.SECONDS);

        operator.keyValue(bucket).put("count", bytes("41"));
        state.put("count", bytes("2"));

        assertThatThrownBy(() -> state.flush().get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(StateFencedException.class)
            .hasMessageContaining("another writer");
        assertThatThrownBy(() -> state.get("count")).isInstanceOf(StateFencedException.class);
        assertThatThrownBy(() -> state.put("other", bytes("x"))).isInstanceOf(StateFencedException.class);
        assertThat(text(operator.keyValue(bucket).get("count").getValue())).isEqualTo("41");
    }

    @Test
    void aZombieOpenedWithEpoch1CannotWriteAfterTheSuccessorWithEpoch2Wrote() throws Exception {
        JetStreamKeyValueState zombie = open(1);
        zombie.put("window.a", bytes("zombie-1"));
        zombie.flush().get(5, TimeUnit.SECONDS);

        JetStreamKeyValueState successor = open(2);
        assertThat(text(successor.get("window.a").orElseThrow())).isEqualTo("zombie-1");
        successor.put("window.a", bytes("successor-1"));
        successor.flush().get(5, TimeUnit.SECONDS);

        // The zombie still runs: its next write, to a key the successor never touched, is
        // refused.
        zombie.put("window.b", bytes("zombie-2"));
        assertThatThrownBy(() -> zombie.flush().get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(StateFencedException.class);
        KeyValue kv = operator.keyValue(bucket);
        assertThat(kv.get("window.b")).isNull();
        assertThat(text(kv.get("window.a").getValue())).isEqualTo("successor-1");

        successor.put("window.b", bytes("successor-2"));
        successor.flush().get(5, TimeUnit.SECONDS);
        assertThat(text(kv.get("window.b").getValue())).isEqualTo("successor-2");
        assertThatThrownBy(() -> open(1)).as("epoch 1 may not open a bucket epoch 2 holds")
            .isInstanceOf(StateFencedException.class)
            .hasMessageContaining("placement epoch 2");
    }

    @Test
    void anOpenWithTheSameEpochTakesTheStateOverFromTheEarlierOpener() throws Exception {
        JetStreamKeyValueState earlier = open(KeyValueStateFactory.NO_PLACEMENT_EPOCH);
        earlier.put("k", bytes("1"));
        earlier.flush().get(5, TimeUnit.SECONDS);

        JetStreamKeyValueState later = open(KeyValueStateFactory.NO_PLACEMENT_EPOCH);
        earlier.put("k", bytes("2"));

        assertThatThrownBy(() -> earlier.flush().get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(StateFencedException.class);
        assertThat(text(later.get("k").orElseThrow())).isEqualTo("1");
    }

    @Test
    void writesMadeWhileTheServerIsDownAreStoredOnceItIsBack() throws Exception {
        JetStreamKeyValueState state = open(1);
        List<CompletableFuture<Void>> flushes = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            state.put("k" + (i % 7), bytes("v" + i));
            flushes.add(state.flush());
        }
        nats.kill();
        try {
            for (int i = 50; i < 100; i++) {
                state.put("k" + (i % 7), bytes("v" + i));
                flushes.add(state.flush());
            }
            List<CompletableFuture<Void>> duringOutage = flushes.subList(50, 100);
            Awaitility.await()
                .during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> duringOutage.stream().noneMatch(CompletableFuture::isDone));
        }
        finally {
            nats.start();
        }
        CompletableFuture.allOf(flushes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        KeyValue kv = operator.keyValue(bucket);
        for (int k = 0; k < 7; k++) {
            int last = 99 - ((99 - k) % 7);
            assertThat(text(kv.get("k" + k).getValue())).as("key k" + k).isEqualTo("v" + last);
        }
        state.put("after", bytes("ok"));
        state.flush().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWriteAfterTheServerRestartedPastTheDuplicateWindowIsStored() throws Exception {
        // A 3 s TTL gives the bucket a 3 s duplicate window: past it, a restarted server
        // no longer knows the bucket's
        // last message id, and a write chained on that id alone would be refused (10070)
        // for ever.
        JetStreamKeyValueState state = JetStreamKeyValueState.open(connection, transport, bucket, 1,
                new JetStreamKeyValueState.Settings(Duration.ofSeconds(3), 1, Duration.ofSeconds(2), 100_000),
                TestThreads.states());
        opened.add(state);
        state.put("k", bytes("1"));
        state.flush().get(10, TimeUnit.SECONDS);
        Thread.sleep(4_000);
        nats.restart();

        state.put("k", bytes("2"));
        state.flush().get(30, TimeUnit.SECONDS);
        assertThat(text(operator.keyValue(bucket).get("k").getValue())).isEqualTo("2");
        state.put("k", bytes("3"));
        state.flush().get(10, TimeUnit.SECONDS);
        assertThat(text(operator.keyValue(bucket).get("k").getValue())).as("the chain goes on").isEqualTo("3");
    }

    @Test
    void aWriteWhosePubAckNeverComesIsLookedUpAndSentAgain_notAwaitedUntilTheClientGivesUp() throws Exception {
        // Issue 30, slow-disk run: a stream leader that steps down while a write is being
        // stored drops the proposal
        // and never answers; jnats fails the PubAck only at its request cleanup, minutes
        // later. Here the first write
        // of a key is never sent and its late PubAck never comes: the writer must look
        // the chain up after the
        // publish timeout and its late PubAck's own wait, and send the write again.
        AtomicInteger dropped = new AtomicInteger();
        ClusterTransport dropsFirstWrite = new ClusterTransport() {
            @Override
            public Substrate substrate() {
                return transport.substrate();
            }

            @Override
            public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
                return publishAtomically(List.of(message));
            }

            @Override
            public CompletableFuture<PublishReceipt> publishAtomically(List<OutboundMessage> messages) {
                if (messages.stream().anyMatch(m -> m.subject().endsWith(".bf.9.a"))
                        && dropped.getAndIncrement() == 0) {
                    return CompletableFuture
                        .failedFuture(new PublishException(messages.get(0).subject(), "no PubAck within 2000 ms",
                                new TimeoutException(), PublishException.Kind.UNAVAILABLE, new CompletableFuture<>()));
                }
                return transport.publishAtomically(messages);
            }

            @Override
            public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
                return transport.consume(consumer, handler);
            }

            @Override
            public void close() {
            }
        };
        JetStreamKeyValueState state = JetStreamKeyValueState.open(connection, dropsFirstWrite, bucket, 1, SETTINGS,
                TestThreads.states());
        opened.add(state);
        state.put("bf.9.a", bytes("1"));
        state.put("bf.9.b", bytes("2"));

        state.flush().get(4 * SETTINGS.timeout().toSeconds() + 5, TimeUnit.SECONDS);
        KeyValue kv = operator.keyValue(bucket);
        assertThat(text(kv.get("bf.9.a").getValue())).isEqualTo("1");
        assertThat(text(kv.get("bf.9.b").getValue())).isEqualTo("2");
        assertThat(dropped).as("sent again once").hasValue(2);
    }

    @Test
    void onePipelineWhoseConfirmedWriteHoldsItsThreadHoldsUpNoOtherPipelinesState() throws Exception {
        // Issue 41: every state's confirmations, and what ran on them (the outputs of the
        // apply), shared one thread per worker; one slow pipeline held up all the others.
        // The slow pipeline's PubAcks come 300 ms late, so that its flush completes on
        // the
        // thread that settles its writes, never on the test's.
        JetStreamKeyValueState slow = JetStreamKeyValueState.open(connection, delayed(transport), bucket, 1, SETTINGS,
                TestThreads.states());
        opened.add(slow);
        String otherBucket = bucket + "_other";
        JetStreamKeyValueState other = JetStreamKeyValueState.open(connection, transport, otherBucket, 1, SETTINGS,
                TestThreads.states());
        opened.add(other);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        slow.put("k", bytes("1"));
        slow.flush().thenRun(() -> {
            holding.countDown();
            await(release);
        });
        try {
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

            other.put("k", bytes("2"));
            other.flush().get(5, TimeUnit.SECONDS);
            assertThat(JetStreamKeyValueState.readFromLeader(operator, otherBucket, "k", Duration.ofSeconds(2))
                .map(JetStreamKeyValueStateTest::text)).contains("2");
        }
        finally {
            release.countDown();
        }
    }

    @Test
    void aBucketDeletedUnderTheWriterEndsItsStateLoudly_namingTheBucket_neverWedged() throws Exception {
        JetStreamKeyValueState state = open(1);
        state.put("k", bytes("1"));
        state.flush().get(5, TimeUnit.SECONDS);
        operator.keyValueManagement().delete(bucket);

        state.put("k", bytes("2"));

        assertThatThrownBy(() -> state.flush().get(15, TimeUnit.SECONDS))
            .hasCauseInstanceOf(KeyValueState.StateLostException.class)
            .hasMessageContaining("state bucket " + bucket + " was deleted");
        assertThatThrownBy(() -> state.get("k")).isInstanceOf(KeyValueState.StateLostException.class);
    }

    @Test
    void aValueOverMaxPayloadIsRefusedWhenItIsWritten() {
        JetStreamKeyValueState state = open(1);
        byte[] huge = new byte[(int) connection.getMaxPayload()];

        assertThatThrownBy(() -> state.put("big", huge)).isInstanceOf(KeyValueState.StateException.class)
            .hasMessageContaining("bytes");
        assertThatThrownBy(() -> state.put("_varpulis.fence", bytes("1"))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("reserved");
    }

    private JetStreamKeyValueState open(long epoch) {
        JetStreamKeyValueState state = JetStreamKeyValueState.open(connection, transport, bucket, epoch, SETTINGS,
                TestThreads.states());
        opened.add(state);
        return state;
    }

    private static Connection connect(NatsServerExtension server, String user) throws Exception {
        return Nats.connect(new Options.Builder().server(server.url())
            .userInfo(user, user)
            .connectionTimeout(Duration.ofSeconds(2))
            .reconnectWait(Duration.ofMillis(200))
            .maxReconnects(-1)
            .build());
    }

    private static ClusterTransport transport(Connection connection) {
        return ClusterTransports.create(connection, Substrate.JETSTREAM, new JetStreamAdmin(connection, null),
                new TransportSettings(1024, Duration.ofSeconds(2), 64));
    }

    private static ClusterTransport delayed(ClusterTransport delegate) {
        return new ClusterTransport() {
            @Override
            public Substrate substrate() {
                return delegate.substrate();
            }

            @Override
            public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
                return publishAtomically(List.of(message));
            }

            @Override
            public CompletableFuture<PublishReceipt> publishAtomically(List<OutboundMessage> messages) {
                return delegate.publishAtomically(messages)
                    .thenApplyAsync(receipt -> receipt, CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));
            }

            @Override
            public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
                return delegate.consume(consumer, handler);
            }

            @Override
            public void close() {
            }
        };
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }

}
