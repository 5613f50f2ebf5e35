package io.varpulis.bruteforce;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.InMemoryKeyValueState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AlertSinkProcessorTest {

    @TempDir
    Path dir;

    private final TestContext context = TestContext.first("alert:x", new InMemoryKeyValueState());

    private static Event alert(String ip, String windowStart, int failures) {
        return new BruteForceAlert(ip, Instant.parse(windowStart), failures).toEvent();
    }

    @Test
    void writesOneJsonLinePerAlert() throws Exception {
        Path file = dir.resolve("out/alerts.jsonl");
        AlertSinkProcessor sink = new AlertSinkProcessor(file);

        assertThat(sink.process(alert("5.36.59.76", "2026-12-10T07:10:00Z", 6), context)).isEmpty();
        sink.process(alert("2001:db8::1", "2026-12-10T07:10:00Z", 5), context);

        assertThat(Files.readAllLines(file)).containsExactly(
                "{\"src_ip\":\"5.36.59.76\",\"window_start\":\"2026-12-10T07:10:00Z\",\"failures\":6}",
                "{\"src_ip\":\"2001:db8::1\",\"window_start\":\"2026-12-10T07:10:00Z\",\"failures\":5}");
    }

    @Test
    void neverTwoLinesForOneSourceAndWindowEvenAcrossARestart() throws Exception {
        Path file = dir.resolve("alerts.jsonl");
        AlertSinkProcessor sink = new AlertSinkProcessor(file);
        sink.process(alert("5.36.59.76", "2026-12-10T07:10:00Z", 6), context);
        sink.process(alert("5.36.59.76", "2026-12-10T07:10:00Z", 6), context);
        sink.process(alert("5.36.59.76", "2026-12-10T07:15:00Z", 5), context);

        AlertSinkProcessor restarted = new AlertSinkProcessor(file);
        restarted.process(alert("5.36.59.76", "2026-12-10T07:10:00Z", 6), context);
        restarted.process(alert("5.36.59.76", "2026-12-10T07:15:00Z", 5), context);
        restarted.process(alert("5.36.59.76", "2026-12-10T07:20:00Z", 7), context);

        assertThat(Files.readAllLines(file)).containsExactly(
                "{\"src_ip\":\"5.36.59.76\",\"window_start\":\"2026-12-10T07:10:00Z\",\"failures\":6}",
                "{\"src_ip\":\"5.36.59.76\",\"window_start\":\"2026-12-10T07:15:00Z\",\"failures\":5}",
                "{\"src_ip\":\"5.36.59.76\",\"window_start\":\"2026-12-10T07:20:00Z\",\"failures\":7}");
    }

    @Test
    void aLineTornByACrashIsCutAndWrittenAgainOnRedelivery() throws Exception {
        Path file = dir.resolve("alerts.jsonl");
        new AlertSinkProcessor(file).process(alert("5.36.59.76", "2026-12-10T07:10:00Z", 6), context);
        Files.writeString(file, "{\"src_ip\":\"112.95.230.3\",\"window_st", StandardOpenOption.APPEND);

        new AlertSinkProcessor(file).process(alert("112.95.230.3", "2026-12-10T07:25:00Z", 5), context);

        assertThat(Files.readAllLines(file)).containsExactly(
                "{\"src_ip\":\"5.36.59.76\",\"window_start\":\"2026-12-10T07:10:00Z\",\"failures\":6}",
                "{\"src_ip\":\"112.95.230.3\",\"window_start\":\"2026-12-10T07:25:00Z\",\"failures\":5}");
    }

    @Test
    void aFileWithAForeignLineIsRefusedNamingTheLine() throws Exception {
        Path file = dir.resolve("alerts.jsonl");
        Files.writeString(file,
                "{\"src_ip\":\"5.36.59.76\",\"window_start\":\"2026-12-10T07:10:00Z\",\"failures\":6}\n" + "hello\n",
                StandardCharsets.UTF_8);

        assertThatThrownBy(() -> new AlertSinkProcessor(file)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(file + " line 2 is not an alert");
    }

    @Test
    void aFileThatIsNotAnAlertFileIsRefusedAndNeverCut() throws Exception {
        Path foreignLines = Files.writeString(dir.resolve("notes.txt"), "hello\nworld");
        Path noNewline = Files.writeString(dir.resolve("blob"), "x".repeat(10_000));
        Path longTail = Files.writeString(dir.resolve("long.jsonl"), "{" + "x".repeat(10_000));

        assertThatThrownBy(() -> new AlertSinkProcessor(foreignLines)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(foreignLines + " line 1 is not an alert");
        assertThatThrownBy(() -> new AlertSinkProcessor(noNewline)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(
                    noNewline + " ends with 10000 bytes without a newline that are not the start " + "of an alert");
        assertThatThrownBy(() -> new AlertSinkProcessor(longTail)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("not the start of an alert");
        assertThat(foreignLines).hasContent("hello\nworld");
        assertThat(Files.size(noNewline)).isEqualTo(10_000);
        assertThat(Files.size(longTail)).isEqualTo(10_001);
    }

    @Test
    void aDirectoryOrADeviceIsRefused() throws Exception {
        Path directory = Files.createDirectories(dir.resolve("alerts.jsonl"));
        Path devZero = Files.createSymbolicLink(dir.resolve("zero.jsonl"), Path.of("/dev/zero"));

        assertThatThrownBy(() -> new AlertSinkProcessor(directory)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("is not a regular file");
        assertThatThrownBy(() -> new AlertSinkProcessor(devZero)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("is not a regular file");
        assertThatThrownBy(() -> new AlertSinkProcessor(Path.of("/dev/zero"))).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("is not a regular file");
    }

    @Test
    void otherEventsAreRejected() {
        AlertSinkProcessor sink = new AlertSinkProcessor(dir.resolve("alerts.jsonl"));

        assertThatThrownBy(() -> sink.process(Event.of("SshAuthFailure", Map.of("src_ip", "10.0.0.9")), context))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("expected a BruteForceSuspected");
        assertThatThrownBy(() -> sink.process(Event.of("BruteForceSuspected",
                Map.of("src_ip", "10.0.0.9", "window_start", "yesterday", "failures", 5)), context))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("not an RFC 3339");
    }

}
