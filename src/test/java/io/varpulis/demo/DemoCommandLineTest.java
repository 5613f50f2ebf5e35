package io.varpulis.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The demo's answers to what a user gets wrong, over {@link BruteForceDemo#run} as
 * {@code java -jar ... demo} calls it: a server without JetStream, a log that is not
 * sshd's, bad options. None of them leaves a run directory behind.
 */
@ExtendWith(OutputCaptureExtension.class)
@BrokerTest
class DemoCommandLineTest {

    @RegisterExtension
    static final NatsServerExtension core = NatsServerExtension.coreOnly();

    @RegisterExtension
    static final NatsServerExtension small = NatsServerExtension.jetStream().withConfig("max_payload: 4096\n");

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /**
     * Issue 15 item 9: the connection log named "(none)"; the run must name the server
     * and stop.
     */
    @Test
    void aServerWithoutJetStreamIsNamedAndNothingIsLeftBehind(CapturedOutput output) throws Exception {
        List<Path> before = BruteForceDemoTest.leftBehind();

        int status = BruteForceDemo.run(
                new String[] { "--nats-url", core.url(), "--summary-json", dir.resolve("summary.json").toString() },
                Map.of());

        assertThat(status).isEqualTo(2);
        assertThat(output.getErr())
            .contains("no JetStream server answers at " + core.url() + ": start nats-server " + "-js there");
        assertThat(output.getOut()).contains("NATS connected to " + core.url()).doesNotContain("(none)");
        JsonNode summary = JSON.readTree(dir.resolve("summary.json").toFile());
        assertThat(summary.path("result").asText()).isEqualTo("FAILED");
        assertThat(summary.path("error").asText()).contains("no JetStream server answers");
        assertThat(summary.path("lines_read").asInt()).isEqualTo(2000);
        assertThat(BruteForceDemoTest.leftBehind()).as("no /tmp/varpulis-demo-* of this run").isEqualTo(before);
    }

    @Test
    void aLogThatIsMostlyUnparsableFailsLoudlyBeforeStartingAnything(CapturedOutput output) throws Exception {
        Path log = dir.resolve("access.log");
        Files.write(log,
                List.of("127.0.0.1 - - [10/Dec/2026:06:55:46 +0000] \"GET / HTTP/1.1\" 200 612",
                        "127.0.0.1 - - [10/Dec/2026:06:55:47 +0000] \"GET /favicon.ico HTTP/1.1\" 404 153",
                        "Dec 10 06:55:48 h sshd[1]: Failed password for root from 10.0.0.9 port 1 ssh2"));
        Path summary = dir.resolve("summary.json");

        int status = BruteForceDemo
            .run(new String[] { "--input", log.toString(), "--summary-json", summary.toString() }, Map.of());

        assertThat(status).isEqualTo(1);
        assertThat(output.getOut())
            .contains("!!! 2 of 3 lines (67 %) have no RFC 3164 or RFC 3339 sshd header: is " + "this an sshd log?")
            .contains("line 1: no RFC 3164")
            .contains("RESULT: FAILED")
            .doesNotContain("nodes:");
        JsonNode json = JSON.readTree(summary.toFile());
        assertThat(json.path("result").asText()).isEqualTo("FAILED");
        assertThat(json.path("lines_expected").path("parked").asInt()).isEqualTo(2);
    }

    @Test
    void aLineThatIsNotUtf8IsMarkedSoThatItIsParked() {
        byte[] log = "Dec 10 06:55:48 h sshd[1]: Failed password for invalid user \u00e9 from 10.0.0.9 port 1 ssh2\r\n"
            .getBytes(StandardCharsets.ISO_8859_1);

        List<LogInput.LogLine> lines = LogInput.lines(log);

        assertThat(lines).singleElement().satisfies(l -> assertThat(l.utf8()).isFalse());
        ExpectedAlerts.Reference reference = ExpectedAlerts.of(lines, new int[] { 2026 }, ZoneId.of("UTC"));
        assertThat(reference.malformed()).isEqualTo(1);
        assertThat(reference.malformedSamples()).containsExactly("line 1: not valid UTF-8");
        assertThat(LogInput.lineEvent(lines.get(0), 1, 2026).fields()).containsEntry("charset", "ISO-8859-1");
    }

    /**
     * A line no message can carry stops the run before any node starts, naming it;
     * nothing is retried for ever.
     */
    @Test
    void aLineTooLargeForTheServerStopsTheRunNamingIt(CapturedOutput output) throws Exception {
        Path log = dir.resolve("huge.log");
        Files.writeString(log,
                "Dec 10 06:55:46 LabSZ sshd[1]: Failed password for root from 10.0.0.9 port 22 ssh2\n"
                        + "Dec 10 06:55:47 LabSZ sshd[1]: Failed password for " + "x".repeat(5000)
                        + " from 10.0.0.9 port 22 ssh2\n");
        List<Path> before = BruteForceDemoTest.leftBehind();

        int status = BruteForceDemo
            .run(new String[] { "--nats-url", small.url(), "--input", log.toString(), "--year", "2026" }, Map.of());

        assertThat(status).isEqualTo(2);
        assertThat(output.getErr()).contains("line 2 is ")
            .contains("bytes as an event, over what the NATS server " + "takes (max_payload 4096 bytes, less 1024")
            .contains("Nothing was published");
        assertThat(output.getOut()).doesNotContain("nodes:");
        assertThat(BruteForceDemoTest.leftBehind()).isEqualTo(before);
    }

    @Test
    void helpPrintsTheUsage(CapturedOutput output) {
        assertThat(BruteForceDemo.run(new String[] { "--help" }, Map.of())).isZero();
        assertThat(output.getOut()).contains("Usage: java -jar varpulis-cluster.jar demo [--input PATH]")
            .contains("--batch LINES_PER_MESSAGE");
        // Someone with only the jar learns every option the parser takes, each on its own
        // line with its default.
        for (String option : List.of("--input", "--year", "--zone", "--alerts-out", "--nats-url", "--rate", "--batch",
                "--kill", "--kill-at", "--no-kill", "--summary-json", "--keep-logs", "--detect-partitions",
                "--coordinators", "--workers")) {
            assertThat(output.getOut()).as(option).containsPattern("(?m)^  " + option + " |" + option + " = ");
        }
        assertThat(output.getOut()).contains("Exit status 0", "VARPULIS_NATS_SERVER");
    }

    @Test
    void optionsAndTheEnvironment() {
        DemoOptions defaults = DemoOptions.parse(new String[0], Map.of());
        assertThat(defaults.natsUrl()).as("isolated by default: the run starts its own nats-server").isNull();
        assertThat(defaults.kill()).isEqualTo(DemoOptions.Kill.WORKER);
        assertThat(defaults.killAt()).isNull();
        assertThat(defaults.replicas()).isEqualTo(1);
        assertThat(defaults.zone()).isEqualTo(ZoneId.of("Z"));
        assertThat(defaults.batch()).isEqualTo(500);
        assertThat(LogFeeder.linesPerMessage(defaults)).as("a tenth of a second at 200 lines/s").isEqualTo(20);
        assertThat(LogFeeder.linesPerMessage(DemoOptions.parse(new String[] { "--rate", "1000000" }, Map.of())))
            .isEqualTo(500);
        assertThat(LogFeeder
            .linesPerMessage(DemoOptions.parse(new String[] { "--batch", "1", "--rate", "9000" }, Map.of())))
            .isEqualTo(1);
        assertThatThrownBy(() -> DemoOptions.parse(new String[] { "--batch", "0" }, Map.of()))
            .hasMessageContaining("--batch must be between 1 (one line per message) and 5000");

        DemoOptions cluster = DemoOptions.parse(
                new String[] { "--kill", "worker+coordinator", "--kill-at", "500", "--zone", "Europe/Paris" },
                Map.of("VARPULIS_NATS_URL", "nats://127.0.0.1:1,nats://127.0.0.1:2", "VARPULIS_NATS_JETSTREAM_REPLICAS",
                        "3"));
        assertThat(cluster.natsUrl()).isEqualTo("nats://127.0.0.1:1,nats://127.0.0.1:2");
        assertThat(cluster.kill()).isEqualTo(DemoOptions.Kill.WORKER_AND_COORDINATOR);
        assertThat(cluster.killAt()).isEqualTo(500);
        assertThat(cluster.replicas()).isEqualTo(3);
        assertThat(cluster.zone()).isEqualTo(ZoneId.of("Europe/Paris"));
        assertThat(DemoOptions.parse(new String[] { "--no-kill" }, Map.of()).kill()).isEqualTo(DemoOptions.Kill.NONE);

        assertThatThrownBy(() -> DemoOptions.parse(new String[0], Map.of("VARPULIS_NATS_JETSTREAM_REPLICAS", "3")))
            .hasMessageContaining("VARPULIS_NATS_JETSTREAM_REPLICAS=3 needs a JetStream cluster");
        assertThatThrownBy(() -> DemoOptions.parse(new String[0], Map.of("VARPULIS_NATS_JETSTREAM_REPLICAS", "x")))
            .hasMessageContaining("'x' is not a replica count: JetStream takes 1 to 5");
        assertThatThrownBy(() -> DemoOptions.parse(new String[] { "--kill", "all" }, Map.of()))
            .hasMessageContaining("--kill must be none, worker or worker+coordinator, got 'all'");
        assertThatThrownBy(() -> DemoOptions.parse(new String[] { "--zone", "Mars/Olympus" }, Map.of()))
            .hasMessageContaining("--zone 'Mars/Olympus' is not a time zone");
        assertThatThrownBy(() -> DemoOptions.parse(new String[] { "--kill-at", "-1" }, Map.of()))
            .hasMessageContaining("--kill-at must be a line count");
    }

    @Test
    void coordinatorsAndTheNodesEnvironment() {
        assertThat(DemoOptions.parse(new String[0], Map.of()).coordinators()).isEqualTo(1);
        assertThat(DemoOptions.parse(new String[] { "--coordinators", "2" }, Map.of()).coordinators()).isEqualTo(2);
        assertThatThrownBy(() -> DemoOptions.parse(new String[] { "--coordinators", "4" }, Map.of()))
            .hasMessageContaining("--coordinators must be between 1 and 3, got 4");
        assertThat(DemoOptions.parse(new String[0], Map.of()).workers()).isEqualTo(2);
        assertThat(DemoOptions.parse(new String[] { "--workers", "3" }, Map.of()).workers()).isEqualTo(3);
        assertThatThrownBy(() -> DemoOptions.parse(new String[] { "--workers", "1" }, Map.of()))
            .hasMessageContaining("--workers must be between 2 and 4, got 1");

        assertThat(NodeProcess.nodeEnvironment("demo-1-worker-1", null)).isEmpty();
        assertThat(NodeProcess.nodeEnvironment("demo-1-worker-1", " FAKETIME_TIMESTAMP_FILE=/tmp/{node}.ft  A=b=c "))
            .containsOnly(Map.entry("FAKETIME_TIMESTAMP_FILE", "/tmp/demo-1-worker-1.ft"), Map.entry("A", "b=c"));
        assertThatThrownBy(() -> NodeProcess.nodeEnvironment("n", "LD_PRELOAD"))
            .hasMessageContaining("VARPULIS_DEMO_NODE_ENV holds 'LD_PRELOAD', not NAME=VALUE");
    }

}
