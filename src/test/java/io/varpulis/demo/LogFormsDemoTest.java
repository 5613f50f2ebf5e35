package io.varpulis.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real {@link BruteForceDemo} on a log of each form SPEC section 7 adds (in
 * {@code src/test/resources/logs}), with the worker hosting {@code detect} killed
 * (SIGKILL) mid-stream and restarted: it exits 0, which it does only when every line,
 * failure and alert is accounted for, and writes exactly the alerts listed here. The
 * lists of the small logs were worked out by hand, that of the real one in part (see its
 * test); every list is the one {@code scripts/fail2ban-agreement.py} computes from
 * fail2ban-regex's matches (Debian's fail2ban 1.0.2) with the same window rule.
 */
@BrokerTest
class LogFormsDemoTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree();

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /**
     * RFC 3339 headers with fractions and offsets ({@code +02:00}, {@code -05:00},
     * {@code +05:30}, {@code Z}), on the production topology: three clustered servers,
     * the streams and the state bucket with 3 replicas as
     * {@code VARPULIS_NATS_JETSTREAM_REPLICAS=3} asks. 2001:db8::1's two lines at
     * 01:04:59-05:00 only join its three at 06:03Z when the offset is applied;
     * 198.51.100.7's fifth failure, 06:20:00.000001Z, is one microsecond into the next
     * window; 192.0.2.45 (publickey), 192.0.2.46 (modern {@code pam_unix(sshd:auth)}) and
     * 192.0.2.99 ({@code sudo}) are not failures.
     */
    @Test
    void rfc3339WithFractionsAndOffsetsOnAThreeServerClusterWithR3Streams() throws Exception {
        Summary run = demo("forms/rfc3339.log", cluster.url(), Map.of(DemoOptions.REPLICAS_VARIABLE, "3"));

        assertThat(run.alerts()).containsExactlyInAnyOrder("203.0.113.10 2026-12-10T06:00:00Z",
                "2001:db8::1 2026-12-10T06:00:00Z", "scanner.example.net 2026-12-10T06:10:00Z",
                "192.0.2.44 2026-12-10T06:20:00Z");
        run.assertLines(46, 25, 21, 0);
        try (Connection connection = Nats.connect(cluster.url(0))) {
            assertThat(connection.jetStreamManagement()
                .getStreamInfo(VarpulisJetStream.ROUTING_STREAM)
                .getConfiguration()
                .getReplicas()).as("VARPULIS_ROUTING created with R3").isEqualTo(3);
        }
    }

    /**
     * OpenSSH 9.8+ tags {@code sshd-session} and {@code sshd-auth} (one without a pid),
     * RFC 3164 headers in zone +02:00: 08:00 local is the 06:00Z window. 203.0.113.22
     * counts {@code sshd} and {@code sshd-session} lines together; 203.0.113.23
     * (publickey), 203.0.113.24 (4 failures; fail2ban's {@code Invalid user} lines are no
     * SPEC failures) and 203.0.113.25 ({@code sshd-keygen}, another program) raise
     * nothing.
     */
    @Test
    void sshdSessionAndSshdAuthTagsInAZone() throws Exception {
        Summary run = demo("forms/sshd-session.log", nats.url(), Map.of(), "--zone", "+02:00");

        assertThat(run.alerts()).containsExactlyInAnyOrder("203.0.113.20 2026-12-10T06:00:00Z",
                "203.0.113.21 2026-12-10T06:05:00Z", "203.0.113.22 2026-12-10T06:10:00Z",
                "2001:db8:0:1::20 2026-12-10T06:25:00Z");
        run.assertLines(45, 24, 21, 0);
    }

    /**
     * rsyslog's {@code message repeated N times: [ ... ]} counts N: 203.0.113.31 crosses
     * the threshold with one line of 9; 203.0.113.32 has 3 + 1; 203.0.113.35's 2 + 3
     * straddle 06:35:00; repeated publickey, {@code Invalid
     * user}, {@code Connection closed} and another program's lines count nothing.
     */
    @Test
    void messageRepeatedCountsN() throws Exception {
        Summary run = demo("forms/message-repeated.log", nats.url(), Map.of());

        assertThat(run.alerts()).containsExactlyInAnyOrder("203.0.113.30 2026-12-10T06:00:00Z",
                "203.0.113.31 2026-12-10T06:05:00Z", "2001:db8::30 2026-12-10T06:25:00Z",
                "203.0.113.36 2026-12-10T06:40:00Z", "ns1.example.org 2026-12-10T06:55:00Z");
        run.assertLines(17, 12, 5, 0);
        assertThat(run.summary().path("failures_counted").asInt()).isEqualTo(38);
    }

    /**
     * The legacy {@code sshd(pam_unix)[pid]: authentication failure; ... rhost=H} of
     * loghub's real Linux_2k.log (a 2005 server, {@code logs/loghub} with its license
     * notice): 489 failures, most sources host names, 41 alerts. Checked by hand:
     * 218.188.2.4's 12 failures at 12:12:34-12:13:20 on June 15 (window 12:10), the 10 of
     * 220-135-151-1.hinet-ip.hinet.net at 02:04:59, the 10 of 061092085098.ctinets.com at
     * 14:53 and the 5 of d211-116-254-214.rev.krline.net at 20:05:31; 218.188.2.4's two
     * failures of June 14 at 15:16 raise nothing, nor does {@code gdm(pam_unix)}'s line
     * with an empty rhost (another program's tag in any case).
     */
    @Test
    void legacyPamOfARealLog() throws Exception {
        Summary run = demo("loghub/Linux_2k.log", nats.url(), Map.of(), "--year", "2005", "--rate", "400");

        assertThat(run.alerts()).hasSize(41)
            .contains("218.188.2.4 2005-06-15T12:10:00Z", "220-135-151-1.hinet-ip.hinet.net 2005-06-15T02:00:00Z",
                    "d211-116-254-214.rev.krline.net 2005-06-15T20:05:00Z",
                    "061092085098.ctinets.com 2005-06-15T14:50:00Z",
                    "adsl-70-242-75-179.dsl.ksc2mo.swbell.net 2005-06-18T01:30:00Z")
            .doesNotContain("218.188.2.4 2005-06-14T15:15:00Z");
        assertThat(run.alerts()).containsExactlyInAnyOrderElementsOf(LINUX_2K_ALERTS);
        run.assertLines(2000, 489, 1511, 0);
    }

    /**
     * The 41 alerts of Linux_2k.log, as scripts/fail2ban-agreement.py lists them from
     * fail2ban's pam-generic.
     */
    private static final List<String> LINUX_2K_ALERTS = List.of("061092085098.ctinets.com 2005-06-15T14:50:00Z",
            "150.183.249.110 2005-07-10T16:00:00Z", "195.129.24.210 2005-06-30T20:15:00Z",
            "195.129.24.210 2005-07-01T10:55:00Z", "202-132-40-29.adsl.ttn.net 2005-07-14T15:00:00Z",
            "202.181.236.180 2005-07-19T07:35:00Z", "203.251.225.101 2005-07-24T08:30:00Z",
            "207.243.167.114 2005-07-26T07:00:00Z", "209.152.168.249 2005-06-23T01:40:00Z",
            "210.229.150.228 2005-07-05T13:35:00Z", "211-76-104-65.ebix.net.tw 2005-07-18T23:00:00Z",
            "211.115.206.155 2005-06-28T21:40:00Z", "211.137.205.253 2005-07-11T17:55:00Z",
            "211.214.161.141 2005-07-10T16:30:00Z", "211.9.58.217 2005-07-23T20:00:00Z",
            "217.60.212.66 2005-06-21T08:55:00Z", "218.16.122.48 2005-07-06T02:20:00Z",
            "218.188.2.4 2005-06-15T12:10:00Z", "218.22.3.51 2005-06-23T23:30:00Z",
            "218.55.234.102 2005-07-20T23:35:00Z", "220-135-151-1.hinet-ip.hinet.net 2005-06-15T02:00:00Z",
            "220.117.241.87 2005-07-04T19:15:00Z", "60.30.224.116 2005-06-30T19:00:00Z",
            "60.30.224.116 2005-07-01T00:20:00Z", "61.53.154.93 2005-06-28T08:10:00Z",
            "62-192-102-94.dsl.easynet.nl 2005-06-28T20:55:00Z", "65.166.159.14 2005-06-20T09:20:00Z",
            "68.143.156.89.nw.nuvox.net 2005-07-12T06:05:00Z", "82.77.200.128 2005-07-11T03:45:00Z",
            "adsl-70-242-75-179.dsl.ksc2mo.swbell.net 2005-06-18T01:30:00Z",
            "biblioteka.wsi.edu.pl 2005-06-30T12:45:00Z", "c51471f2c.cable.wanadoo.nl 2005-07-15T01:00:00Z",
            "csnsu.nsuok.edu 2005-06-29T10:05:00Z", "d211-116-254-214.rev.krline.net 2005-06-15T20:05:00Z",
            "h64-187-1-131.gtconnect.net 2005-06-29T12:10:00Z",
            "ip-216-69-169-168.ip.secureserver.net 2005-06-22T04:30:00Z", "massive.merukuru.org 2005-06-25T04:40:00Z",
            "n219076184117.netvigator.com 2005-06-22T03:15:00Z", "p15105218.pureserver.info 2005-07-09T19:30:00Z",
            "troi.bluesky-technologies.com 2005-06-27T08:05:00Z", "zummit.com 2005-07-02T04:15:00Z");

    /**
     * A run's alert identities ({@code src_ip window_start}, never twice) and its JSON
     * summary.
     */
    private record Summary(List<String> alerts, JsonNode summary) {

        void assertLines(int read, int parsed, int other, int parked) {
            assertThat(summary.path("result").asText()).isEqualTo("OK");
            assertThat(List.of(summary.path("lines_read").asInt(), summary.path("lines_parsed").asInt(),
                    summary.path("lines_other").asInt(), summary.path("lines_parked").asInt()))
                .as("lines read, parsed, other, parked")
                .containsExactly(read, parsed, other, parked);
            assertThat(summary.path("failures_applied").asInt()).isEqualTo(parsed);
            assertThat(summary.path("alerts_missing")).isEmpty();
            assertThat(summary.path("alerts_unexpected")).isEmpty();
        }
    }

    /** The report's problems, for a failed run's message. */
    private static String problems(Path summary) {
        try {
            return Files.exists(summary) ? JSON.readTree(summary.toFile()).path("problems").toString()
                    : "no summary written";
        }
        catch (IOException e) {
            return "summary unreadable: " + e;
        }
    }

    private Summary demo(String log, String url, Map<String, String> env, String... extra) throws Exception {
        Path input = Path.of(Objects.requireNonNull(getClass().getResource("/logs/" + log), log).toURI());
        Path alerts = dir.resolve("alerts.jsonl");
        Path summary = dir.resolve("summary.json");
        List<String> args = new ArrayList<>(
                List.of("--input", input.toString(), "--nats-url", url, "--alerts-out", alerts.toString(),
                        "--summary-json", summary.toString(), "--year", "2026", "--rate", "25", "--kill", "worker"));
        args.addAll(List.of(extra));

        int status = BruteForceDemo.run(args.toArray(String[]::new), env);

        assertThat(status)
            .as(() -> "exit status: 0 means every line, failure and alert accounted for; the " + "report's problems: "
                    + problems(summary))
            .isZero();
        List<String> identities = new ArrayList<>();
        for (String line : Files.readAllLines(alerts, StandardCharsets.UTF_8)) {
            JsonNode alert = JSON.readTree(line);
            identities.add(alert.path("src_ip").asText() + " " + alert.path("window_start").asText());
        }
        assertThat(identities).as("never two alerts for one (src_ip, window_start)").doesNotHaveDuplicates();
        return new Summary(identities, JSON.readTree(summary.toFile()));
    }

}
