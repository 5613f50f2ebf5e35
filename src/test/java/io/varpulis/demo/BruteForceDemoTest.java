package io.varpulis.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 4's automated run: the real {@link BruteForceDemo} (a coordinator and two workers as child JVMs of the test
 * classpath, on a JetStream server, the worker hosting {@code detect} killed with SIGKILL half-way through the
 * bundled loghub sample and restarted) exits 0, which it does only when {@code lost = 0} and its alerts equal the
 * in-process reference run without a kill; and the alert file holds exactly the 16 alerts of the sample, one line
 * each.
 * <p>The 16 alerts were computed twice outside the cluster: by the in-memory job of {@link SampleLogAlertsTest}
 * and by the awk program quoted there; three of them (and two non-alerts) are checked by hand in its Javadoc.
 */
@BrokerTest
class BruteForceDemoTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    /** {@code src_ip window_start failures} of every alert the sample raises, year 2026. */
    private static final List<String> EXPECTED = List.of(
            "5.36.59.76 2026-12-10T07:10:00Z 6",
            "112.95.230.3 2026-12-10T07:25:00Z 5",
            "123.235.32.19 2026-12-10T07:30:00Z 5",
            "5.188.10.180 2026-12-10T08:20:00Z 5",
            "5.188.10.180 2026-12-10T08:25:00Z 5",
            "106.5.5.195 2026-12-10T08:35:00Z 6",
            "185.190.58.151 2026-12-10T09:05:00Z 5",
            "185.190.58.151 2026-12-10T09:10:00Z 5",
            "103.99.0.122 2026-12-10T09:10:00Z 5",
            "187.141.143.180 2026-12-10T09:10:00Z 5",
            "187.141.143.180 2026-12-10T09:15:00Z 5",
            "119.4.203.64 2026-12-10T10:10:00Z 5",
            "183.62.140.253 2026-12-10T10:50:00Z 5",
            "183.62.140.253 2026-12-10T10:55:00Z 5",
            "183.62.140.253 2026-12-10T11:00:00Z 5",
            "103.99.0.122 2026-12-10T11:00:00Z 5");

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void workerKilledMidStreamLosesNothingAndTheAlertsAreTheHandCheckedOnes() throws Exception {
        Path alerts = dir.resolve("alerts.jsonl");

        int status = BruteForceDemo.run(new String[]{"--nats-url", nats.url(), "--alerts-out", alerts.toString(),
                "--year", "2026", "--rate", "400"});

        assertThat(status).as("exit status: 0 means lost = 0 and the alerts equal the run without a kill")
                .isZero();
        List<String> lines = Files.readAllLines(alerts, StandardCharsets.UTF_8).stream()
                .filter(l -> !l.isBlank()).toList();
        assertThat(lines).as("one line per alert, none written twice").doesNotHaveDuplicates();
        List<String> identities = new ArrayList<>();
        for (String line : lines) {
            JsonNode alert = JSON.readTree(line);
            identities.add(alert.path("src_ip").asText() + " " + alert.path("window_start").asText() + " "
                    + alert.path("failures").asInt());
        }
        assertThat(identities).containsExactlyInAnyOrderElementsOf(EXPECTED);
        assertThat(identities).as("the hand-checked windows").contains(
                "5.36.59.76 2026-12-10T07:10:00Z 6",
                "185.190.58.151 2026-12-10T09:05:00Z 5",
                "185.190.58.151 2026-12-10T09:10:00Z 5",
                "112.95.230.3 2026-12-10T07:25:00Z 5");
        assertThat(identities.stream().map(i -> i.substring(0, i.lastIndexOf(' '))))
                .as("never two alerts for one (src_ip, window_start)").doesNotHaveDuplicates();
    }
}
