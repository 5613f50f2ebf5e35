package io.varpulis.faults;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fault suite's own parsing: its options, the demo's output it reads, and the alerts it counts twice. */
class FaultHarnessTest {

    @TempDir
    Path dir;

    @Test
    void optionsOfIssue25sScenarios() {
        FaultOptions defaults = FaultOptions.parse(new String[]{"--scenarios=pause-alerts,slow-fsync"});
        assertThat(defaults.scenarios()).containsExactly("pause-alerts", "slow-fsync");
        assertThat(defaults.rate()).isEqualTo(3000);
        assertThat(defaults.pause()).isEqualTo(20);
        assertThat(defaults.skew()).isEqualTo(30);
        assertThat(defaults.fsyncDelays()).containsExactly(20, 100);
        assertThat(defaults.rates().get("b")).as("issue 11's rates stay").isEqualTo(20_000);

        FaultOptions ci = FaultOptions.parse(new String[]{"--rate=300", "--pause=10", "--fsync-delays=5"});
        assertThat(ci.rates().get("pause-leader")).isEqualTo(300);
        assertThat(ci.fsyncDelays()).containsExactly(5);
        assertThatThrownBy(() -> FaultOptions.parse(new String[]{"--scenarios=pause-everything"}))
                .hasMessageContaining("unknown scenario");
        assertThatThrownBy(() -> FaultOptions.parse(new String[]{"--pause=long"}))
                .hasMessageContaining("--pause must be a number, got 'long'");
    }

    @Test
    void readsTheNodesAndThePlacementTheDemoPrinted() throws Exception {
        Path log = dir.resolve("demo.log");
        Files.writeString(log, """
                node logs: /tmp/varpulis-demo-x
                nodes: demo-7-coordinator (pid 11), demo-7-coordinator-2 (pid 12), demo-7-worker-1 (pid 13), \
                demo-7-worker-2 (pid 14)
                group ssh-bruteforce deployed: {ingress=demo-7-worker-1, detect=demo-7-worker-2, alerts=demo-7-worker-1}
                """);
        RunningDemo demo = new RunningDemo(log, "nats://127.0.0.1:1");
        assertThat(demo.pids()).containsExactly(Map.entry("demo-7-coordinator", 11L),
                Map.entry("demo-7-coordinator-2", 12L), Map.entry("demo-7-worker-1", 13L),
                Map.entry("demo-7-worker-2", 14L));
        assertThat(demo.host("alerts")).isEqualTo("demo-7-worker-1");
        assertThat(demo.host("detect")).isEqualTo("demo-7-worker-2");
        assertThatThrownBy(() -> demo.host("report")).hasMessageContaining("no placement of report");
    }

    @Test
    void countsAlertsWrittenTwiceByIdentity() throws Exception {
        Path alerts = dir.resolve("alerts.jsonl");
        assertThat(DemoScenario.writtenTwice(alerts)).as("no file").isZero();
        String a = "{\"src_ip\":\"10.0.0.1\",\"window_start\":\"2026-12-10T07:10:00Z\",\"failures\":5}";
        String b = "{\"src_ip\":\"10.0.0.2\",\"window_start\":\"2026-12-10T07:10:00Z\",\"failures\":5}";
        String aAgain = "{\"src_ip\":\"10.0.0.1\",\"window_start\":\"2026-12-10T07:10:00Z\",\"failures\":6}";
        Files.write(alerts, List.of(a, b, aAgain, a, ""));
        assertThat(DemoScenario.writtenTwice(alerts)).isEqualTo(2);
    }
}
