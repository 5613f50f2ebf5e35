package io.varpulis.demo;

import io.varpulis.delivery.DeployedPipeline;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SPEC section 9, a sink's external write is fenced too (issue 25, item 1: a paused worker wrote alerts twice): the
 * alert sink claims each alert in its pipeline's state, which the server fences, before its file write. Two
 * placements of the {@code alerts} pipeline (two processes sharing the file) write every alert once.
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
            KeyValueState oldState = JetStreamKeyValueState.open(first.connection, first.transport, bucket, 1,
                    SETTINGS);
            DeployedPipeline old = new DeployedPipeline("sink-fence", "alerts", new AlertSinkProcessor(file),
                    oldState);
            old.apply(alert("10.0.0.1"), "m1", 1);
            // The successor's processor opens the file before the old placement's last alert is written.
            AlertSinkProcessor successorSink = new AlertSinkProcessor(file);
            old.apply(alert("10.0.0.4"), "m4", 1);
            // The old placement claimed an alert, then stopped before writing its line (a crash between the two).
            oldState.put(AlertSinkProcessor.claimKey(BruteForceAlert.fromEvent(alert("10.0.0.3"))),
                    "{}".getBytes(StandardCharsets.UTF_8));
            oldState.flush().get(5, TimeUnit.SECONDS);

            KeyValueState newState = JetStreamKeyValueState.open(second.connection, second.transport, bucket, 2,
                    SETTINGS);
            DeployedPipeline successor = new DeployedPipeline("sink-fence", "alerts", successorSink, newState);

            assertThatThrownBy(() -> old.apply(alert("10.0.0.2"), "m2", 1))
                    .as("the superseded placement's claim is refused by the server")
                    .isInstanceOf(KeyValueState.StateFencedException.class);
            assertThat(Files.readString(file)).as("so it wrote nothing").doesNotContain("10.0.0.2");

            for (String ip : new String[] {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.2"}) {
                successor.apply(alert(ip), "again-" + ip, 2).stored().get(5, TimeUnit.SECONDS);
            }
            assertThat(Files.readAllLines(file)).as("every alert once: 10.0.0.4 was written by the old placement "
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
                    SETTINGS);
            firstState.put(claim, "{}".getBytes(StandardCharsets.UTF_8));
            firstState.flush().get(5, TimeUnit.SECONDS);
            firstState.close();
            KeyValueState oldState = JetStreamKeyValueState.open(first.connection, first.transport, bucket, 2,
                    SETTINGS);
            DeployedPipeline old = new DeployedPipeline("sink-fence", "claimed", new AlertSinkProcessor(file),
                    oldState);
            assertThat(oldState.get(claim)).as("the second placement sees the claim").isPresent();
            // A third placement took over; it will write the line itself.
            KeyValueState newState = JetStreamKeyValueState.open(second.connection, second.transport, bucket, 3,
                    SETTINGS);

            assertThatThrownBy(() -> old.apply(alert("10.0.0.9"), "old-m9", 1))
                    .as("the second placement, running late but never paused, finds a claim and no line: the "
                            + "server's fence refuses it before it writes")
                    .isInstanceOf(KeyValueState.StateFencedException.class);
            assertThat(Files.readString(file)).as("so it wrote nothing").isEmpty();
            oldState.close();
            newState.close();
        }
    }

    private static Event alert(String ip) {
        return new BruteForceAlert(ip, Instant.parse("2026-12-22T09:10:00Z"), 5).toEvent();
    }
}
