package io.varpulis.bruteforce;

import io.varpulis.delivery.DeployedPipeline;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestPipelines;
import io.varpulis.test.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SPEC section 9, a sink's external write is fenced too (issue 25, item 1: a paused
 * worker wrote alerts twice): the alert sink claims each alert in its pipeline's state,
 * which the server fences, before its file write. Two placements of the {@code alerts}
 * pipeline (two processes sharing the file) write every alert once.
 */
@BrokerTest
class AlertSinkFencingTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final JetStreamKeyValueState.Settings SETTINGS = new JetStreamKeyValueState.Settings(
            Duration.ofHours(1), 1, Duration.ofSeconds(2), 1000);

    @TempDir
    Path dir;

    @Test
    void aSupersededPlacementWritesNoAlert_andItsSuccessorWritesEachAlertOnce() throws Exception {
        Path file = dir.resolve("alerts.jsonl");
        String bucket = JetStreamKeyValueState.bucketName("sink-fence", "alerts");
        try (SubstrateFixture first = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                SubstrateFixture second = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            KeyValueState oldState = JetStreamKeyValueState.open(first.connection, first.transport, bucket, 1, SETTINGS,
                    TestThreads.states());
            DeployedPipeline old = TestPipelines.deployed("sink-fence", "alerts", new AlertSinkProcessor(file),
                    oldState);
            old.apply(alert("10.0.0.1"), "m1", 1).stored().get(5, TimeUnit.SECONDS);
            // The successor's processor opens the file before the old placement's last
            // alert is written.
            AlertSinkProcessor successorSink = new AlertSinkProcessor(file);
            old.apply(alert("10.0.0.4"), "m4", 1).stored().get(5, TimeUnit.SECONDS);
            // The old placement claimed an alert, then stopped before writing its line (a
            // crash between the two).
            oldState.put(AlertSinkProcessor.claimKey(BruteForceAlert.fromEvent(alert("10.0.0.3"))),
                    "{}".getBytes(StandardCharsets.UTF_8));
            oldState.flush().get(5, TimeUnit.SECONDS);

            KeyValueState newState = JetStreamKeyValueState.open(second.connection, second.transport, bucket, 2,
                    SETTINGS, TestThreads.states());
            DeployedPipeline successor = TestPipelines.deployed("sink-fence", "alerts", successorSink, newState);

            // The claim's refusal arrives with its PubAck: it fails the apply's
            // confirmation (what the ack waits
            // for), and the line, written only once the claim is stored, is never
            // written.
            assertThat(failureOf(() -> old.apply(alert("10.0.0.2"), "m2", 1).stored()))
                .as("the superseded placement's claim is refused by the server")
                .isInstanceOf(KeyValueState.StateFencedException.class);
            assertThat(Files.readString(file)).as("so it wrote nothing").doesNotContain("10.0.0.2");

            for (String ip : new String[] { "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.2" }) {
                successor.apply(alert(ip), "again-" + ip, 2).stored().get(5, TimeUnit.SECONDS);
            }
            assertThat(Files.readAllLines(file))
                .as("every alert once: 10.0.0.4 was written by the old placement "
                        + "after the successor opened the file, 10.0.0.3 claimed but never written by it")
                .extracting(line -> line.substring(11, line.indexOf("\"", 11)))
                .containsExactly("10.0.0.1", "10.0.0.4", "10.0.0.2", "10.0.0.3");
            oldState.close();
            newState.close();
        }
    }

    @Test
    void aSupersededPlacementThatFindsAClaimWithoutItsLineWritesNothing_withoutAnyPause() throws Exception {
        Path file = dir.resolve("alerts.jsonl");
        String bucket = JetStreamKeyValueState.bucketName("sink-fence", "claimed");
        String claim = AlertSinkProcessor.claimKey(BruteForceAlert.fromEvent(alert("10.0.0.9")));
        try (SubstrateFixture first = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                SubstrateFixture second = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            // A first placement claimed the alert and stopped before writing its line.
            KeyValueState firstState = JetStreamKeyValueState.open(first.connection, first.transport, bucket, 1,
                    SETTINGS, TestThreads.states());
            firstState.put(claim, "{}".getBytes(StandardCharsets.UTF_8));
            firstState.flush().get(5, TimeUnit.SECONDS);
            firstState.close();
            KeyValueState oldState = JetStreamKeyValueState.open(first.connection, first.transport, bucket, 2, SETTINGS,
                    TestThreads.states());
            DeployedPipeline old = TestPipelines.deployed("sink-fence", "claimed", new AlertSinkProcessor(file),
                    oldState);
            assertThat(oldState.get(claim)).as("the second placement sees the claim").isPresent();
            // A third placement took over; it will write the line itself.
            KeyValueState newState = JetStreamKeyValueState.open(second.connection, second.transport, bucket, 3,
                    SETTINGS, TestThreads.states());

            assertThatThrownBy(() -> old.apply(alert("10.0.0.9"), "old-m9", 1))
                .as("the second placement, running late but never paused, finds a claim and no line: the "
                        + "server's fence refuses it before it writes")
                .isInstanceOf(KeyValueState.StateFencedException.class);
            assertThat(Files.readString(file)).as("so it wrote nothing").isEmpty();
            oldState.close();
            newState.close();
        }
    }

    @Test
    void claimsInFlightTogether_eachLineWrittenOnceAfterItsClaim_andEachAckAfterItsLine() throws Exception {
        Path file = dir.resolve("alerts.jsonl");
        String bucket = JetStreamKeyValueState.bucketName("sink-fence", "pipelined");
        try (SubstrateFixture fixture = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            KeyValueState state = JetStreamKeyValueState.open(fixture.connection, fixture.transport, bucket, 1,
                    SETTINGS, TestThreads.states());
            DeployedPipeline sink = TestPipelines.deployed("sink-fence", "pipelined", new AlertSinkProcessor(file),
                    state);
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            Set<String> lineBeforeAck = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 60; i++) {
                // Every fifth alert comes twice in a row (a redelivery while the first
                // copy's line is in flight).
                for (int copy = 0; copy < (i % 5 == 0 ? 2 : 1); copy++) {
                    String ip = "10.0.1." + i;
                    String applied = ip + "/" + copy;
                    CompletableFuture<Void> ack = sink.apply(alert(ip), "m" + i + "-" + copy, 1 + copy).stored();
                    acks.add(ack.whenComplete((ok, error) -> {
                        try {
                            if (error == null && Files.readString(file).contains("\"" + ip + "\"")) {
                                lineBeforeAck.add(applied);
                            }
                        }
                        catch (java.io.IOException ignored) {
                            // counted as missing below
                        }
                    }));
                }
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(lineBeforeAck).as("each confirmation completes only once its alert's line is in the file")
                .hasSize(72);
            assertThat(Files.readAllLines(file)).as("one line per alert, the second copies included once")
                .hasSize(60)
                .doesNotHaveDuplicates();
            state.close();
        }
    }

    @Test
    void aLineWhoseFileAnotherProcessHoldsLockedWaitsForItWithoutFailingTheApply() throws Exception {
        Path file = dir.resolve("alerts.jsonl");
        String bucket = JetStreamKeyValueState.bucketName("sink-fence", "locked");
        try (SubstrateFixture fixture = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            KeyValueState state = JetStreamKeyValueState.open(fixture.connection, fixture.transport, bucket, 1,
                    SETTINGS, TestThreads.states());
            DeployedPipeline sink = TestPipelines.deployed("sink-fence", "locked", new AlertSinkProcessor(file), state);
            // Another process (fcntl, the lock Java's FileChannel takes) holds the file
            // for 1.5 s, as one paused in
            // the middle of its write would.
            Process holder = new ProcessBuilder("python3", "-c",
                    "import fcntl,sys,time\n"
                            + "f=open(sys.argv[1],'r+'); fcntl.lockf(f, fcntl.LOCK_EX); print('locked', flush=True)\n"
                            + "time.sleep(1.5)",
                    file.toString())
                .redirectErrorStream(true)
                .start();
            assertThat(new String(holder.getInputStream().readNBytes(6))).isEqualTo("locked");
            CompletableFuture<Void> ack = sink.apply(alert("10.0.2.1"), "m-locked", 1).stored();
            assertThat(failureOf(() -> ack))
                .as("the line waits for the lock, then is written: no failure, no " + "delivery spent")
                .isNull();
            assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.readAllLines(file)).hasSize(1).allMatch(line -> line.contains("10.0.2.1"));
            state.close();
        }
    }

    /**
     * @return what an apply failed with: thrown by it, or its confirmation's failure (a
     * claim is refused when its PubAck arrives, after the apply returned)
     */
    private static Throwable failureOf(Callable<CompletableFuture<Void>> apply) throws Exception {
        CompletableFuture<Void> stored;
        try {
            stored = apply.call();
        }
        catch (Exception thrown) {
            return thrown;
        }
        try {
            stored.get(5, TimeUnit.SECONDS);
            return null;
        }
        catch (ExecutionException failed) {
            Throwable cause = failed.getCause();
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            return cause;
        }
    }

    private static Event alert(String ip) {
        return new BruteForceAlert(ip, Instant.parse("2026-12-22T09:10:00Z"), 5).toEvent();
    }

}
