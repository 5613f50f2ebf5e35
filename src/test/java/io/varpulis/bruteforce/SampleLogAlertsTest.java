package io.varpulis.bruteforce;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.InMemoryKeyValueState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole {@code ssh-bruteforce} job on the loghub sample (year 2026), in memory:
 * ingress, detect, alerts.
 * <p>
 * Expected alerts, checked by hand against
 * {@code src/main/resources/sample/OpenSSH_2k.log} (all 2,000 lines are from Dec 10; the
 * file has CRLF endings). A failure is a {@code Failed METHOD} line for any METHOD but
 * publickey (the sample has 518 {@code Failed password} and 4 {@code Failed none}) and N
 * for {@code message repeated N times} (2 lines). Per-window counts of one source were
 * listed with <pre>
 * tr -d '\r' &lt; OpenSSH_2k.log | grep -F "from $IP port" | grep -E 'Failed (password|none)' | awk '{
 *   split($3,t,":"); w=sprintf("%s:%02d", t[1], int(t[2]/5)*5); n=1; if ($0 ~ /message repeated/) {
 *   match($0,/repeated [0-9]+/); n=substr($0,RSTART+9,RLENGTH-9)+0 }; c[w]+=n; print $3" window "w" +"n" -> "c[w] }'
 * </pre>
 * <ul>
 * <li>5.36.59.76: line 29 at 07:13:43 (1), line 30 at 07:13:56
 * {@code message repeated 5 times} (+5): window 07:10 jumps from 1 to 6, so one alert
 * with failures 6, crossed by more than one.</li>
 * <li>185.190.58.151: 09:07:23 ({@code Failed none}, line 298), 07:58, 08:40, 08:47,
 * 08:54 past 09h (lines 304 to 314) are 5 in window 09:05, alert with 5 (09:09:42 makes
 * 6, no second alert); 09:10:06, :11, :19, 09:11:03, :11 (lines 325 to 339) are 5 in
 * window 09:10, a second alert with 5: the windows split at 09:10:00 exactly.</li>
 * <li>5.188.10.180 in window 08:20: 08:24:35, :40 ({@code none}), :45, :52 and :58
 * ({@code none}), lines 189 to 206, make an alert with 5 that {@code Failed password}
 * alone would not raise; its alert for 08:25 follows.</li>
 * <li>112.95.230.3: 26 failures from 07:27:52 to 07:28:51 (lines 35 to 116), all in
 * window 07:25; the fifth, at 07:28:03 (line 47), raises one alert with 5.</li>
 * <li>No alert: 52.80.34.196 (5 failures, each in its own window: 07:05, 07:55, 08:40,
 * 09:30, 10:20).</li>
 * </ul>
 */
class SampleLogAlertsTest {

    /**
     * Computed outside Java, twice, the same way: awk and Python counted each (src_ip,
     * floor(seconds of the day / 300)) pair in file order, {@code message repeated N} as
     * N, and printed a pair when its count went from below 5 to 5 or more. Both printed
     * 16 alerts (over 524 failure lines, 532 failures): <pre>
     * tr -d '\r' &lt; OpenSSH_2k.log | awk '{ split($3,t,":"); w=int((t[1]*3600+t[2]*60+t[3])/300); n=0 }
     *   / sshd\[[0-9]+\]: Failed [^ ]+ for .* from [^ ]+ port [0-9]+( ssh2)?$/ &amp;&amp; $6 != "publickey" {
     *     n=1; ip=$(NF-3) }
     *   /message repeated [0-9]+ times: \[ Failed [^ ]+ for / { match($0,/repeated [0-9]+/);
     *     n=substr($0,RSTART+9,RLENGTH-9)+0; ip=$(NF-3) }
     *   n&gt;0 { k=ip" "w; b=c[k]; c[k]+=n; if (b&lt;5 &amp;&amp; c[k]&gt;=5) a++ } END { print a }'
     * </pre> fail2ban-regex's sshd filter agrees (scripts/fail2ban-agreement.py).
     */
    private static final int EXPECTED_ALERTS = 16;

    private static final int YEAR = 2026;

    @TempDir
    Path dir;

    @Test
    void theSampleRaisesTheHandCheckedAlerts() throws IOException {
        List<String> lines = sampleLines();
        Job job = new Job(dir.resolve("alerts.jsonl"));

        job.deliver(lines, 1, lines.size());

        List<String> alerts = job.alerts();
        System.out.println("alerts on the sample (" + alerts.size() + "):");
        alerts.forEach(System.out::println);
        assertThat(lines).hasSize(2000);
        assertThat(job.failureEvents).isEqualTo(524);
        assertThat(job.failures).isEqualTo(532);
        assertThat(alerts).hasSize(EXPECTED_ALERTS)
            .doesNotHaveDuplicates()
            .contains(line("5.36.59.76", "2026-12-10T07:10:00Z", 6), line("185.190.58.151", "2026-12-10T09:05:00Z", 5),
                    line("185.190.58.151", "2026-12-10T09:10:00Z", 5), line("112.95.230.3", "2026-12-10T07:25:00Z", 5),
                    line("5.188.10.180", "2026-12-10T08:20:00Z", 5));
        assertThat(alerts).filteredOn(a -> a.contains("\"5.36.59.76\"")).hasSize(1);
        assertThat(alerts).filteredOn(a -> a.contains("\"185.190.58.151\"")).hasSize(2);
        assertThat(alerts).filteredOn(a -> a.contains("\"112.95.230.3\"")).hasSize(1);
        assertThat(alerts).filteredOn(a -> a.contains("\"5.188.10.180\"")).hasSize(2);
        assertThat(alerts).noneMatch(a -> a.contains("\"52.80.34.196\""));
    }

    /**
     * A worker killed after line {@code crashAt} went through ingress and detect, before
     * its outputs reached the alert sink and before the last 100 inputs were acked: a new
     * detector and sink on the same state and file, and those inputs delivered again, end
     * with the alert file of a run without a crash.
     */
    @ParameterizedTest
    @ValueSource(ints = { 30, 47, 321, 1000, 1999, 2000 })
    void aCrashMidStreamChangesNoAlert(int crashAt) throws IOException {
        List<String> lines = sampleLines();
        Job reference = new Job(dir.resolve("reference.jsonl"));
        reference.deliver(lines, 1, lines.size());

        Job crashed = new Job(dir.resolve("crashed.jsonl"));
        crashed.deliver(lines, 1, crashAt - 1);
        crashed.detect(lines, crashAt);
        Job restarted = crashed.restart();
        restarted.deliver(lines, Math.max(1, crashAt - 100), lines.size());

        assertThat(restarted.alerts()).hasSize(EXPECTED_ALERTS).isEqualTo(reference.alerts());
    }

    @Test
    void deliveringTheWholeLogAgainAddsNothing() throws IOException {
        List<String> lines = sampleLines();
        Job job = new Job(dir.resolve("alerts.jsonl"));
        job.deliver(lines, 1, lines.size());
        List<String> once = job.alerts();

        job.restart().deliver(lines, 1, lines.size());

        assertThat(job.alerts()).isEqualTo(once);
    }

    private static String line(String ip, String windowStart, int failures) {
        return "{\"src_ip\":\"" + ip + "\",\"window_start\":\"" + windowStart + "\",\"failures\":" + failures + "}";
    }

    private static List<String> sampleLines() throws IOException {
        try (InputStream in = Objects.requireNonNull(
                SampleLogAlertsTest.class.getResourceAsStream("/sample/OpenSSH_2k.log"),
                "sample log missing from the classpath");
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return reader.lines().toList();
        }
    }

    /**
     * The three pipelines wired in memory, with the message ids a JetStream run would
     * give them: the line's id {@code line:<n>}, an ingress output's
     * {@code <input id>#<index>}, an alert's {@link BruteForceDetector#alertId}.
     */
    private static final class Job {

        private final Path alertFile;

        private final InMemoryKeyValueState detectState;

        private final SshLogIngressProcessor ingress = new SshLogIngressProcessor(YEAR);

        private final BruteForceDetector detector = new BruteForceDetector();

        private final AlertSinkProcessor sink;

        private int failureEvents;

        private int failures;

        Job(Path alertFile) {
            this(alertFile, new InMemoryKeyValueState());
        }

        private Job(Path alertFile, InMemoryKeyValueState detectState) {
            this.alertFile = alertFile;
            this.detectState = detectState;
            this.sink = new AlertSinkProcessor(alertFile);
        }

        /** New processor instances on the state and file that survive the process. */
        Job restart() {
            return new Job(alertFile, detectState);
        }

        void deliver(List<String> lines, int from, int to) throws IOException {
            for (int n = from; n <= to; n++) {
                for (Event alert : detect(lines, n)) {
                    sink.process(alert, TestContext.first(BruteForceDetector.alertId(alert), detectState));
                }
            }
        }

        /**
         * Applies line n through ingress and detect and returns the alerts it raises,
         * without recording them.
         */
        List<Event> detect(List<String> lines, int n) {
            String lineId = "line:" + n;
            List<Event> parsed = ingress.process(
                    Event.of(SshEvents.LOG_LINE, Map.of(SshEvents.LINE, lines.get(n - 1), SshEvents.LINE_NUMBER, n)),
                    TestContext.first(lineId, new InMemoryKeyValueState()));
            List<Event> alerts = new ArrayList<>();
            for (int i = 0; i < parsed.size(); i++) {
                failureEvents++;
                failures += (Integer) parsed.get(i).fields().get(SshEvents.FAILURES);
                alerts.addAll(detector.process(parsed.get(i), TestContext.first(lineId + "#" + i, detectState)));
            }
            return alerts;
        }

        List<String> alerts() throws IOException {
            return Files.readAllLines(alertFile);
        }

    }

}
