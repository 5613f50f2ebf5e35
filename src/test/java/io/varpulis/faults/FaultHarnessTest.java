package io.varpulis.faults;

import io.nats.client.impl.Headers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fault suite's own parsing: its options, the demo's output it reads, the alerts it
 * counts twice, and issue 30's advisories matched to parked events, PubAck outcomes and
 * disk filling.
 */
class FaultHarnessTest {

    @TempDir
    Path dir;

    @Test
    void optionsOfIssue25sScenarios() {
        FaultOptions defaults = FaultOptions.parse(new String[] { "--scenarios=pause-alerts,slow-fsync" });
        assertThat(defaults.scenarios()).containsExactly("pause-alerts", "slow-fsync");
        assertThat(defaults.rate()).isEqualTo(3000);
        assertThat(defaults.pause()).isEqualTo(20);
        assertThat(defaults.skew()).isEqualTo(30);
        assertThat(defaults.fsyncDelays()).containsExactly(20, 100);
        assertThat(defaults.rates().get("b")).as("issue 11's rates stay").isEqualTo(20_000);

        FaultOptions ci = FaultOptions.parse(new String[] { "--rate=300", "--pause=10", "--fsync-delays=5" });
        assertThat(ci.rates().get("pause-leader")).isEqualTo(300);
        assertThat(ci.fsyncDelays()).containsExactly(5);
        assertThatThrownBy(() -> FaultOptions.parse(new String[] { "--scenarios=pause-everything" }))
            .hasMessageContaining("unknown scenario");
        assertThatThrownBy(() -> FaultOptions.parse(new String[] { "--pause=long" }))
            .hasMessageContaining("--pause must be a number, got 'long'");
    }

    @Test
    void optionsOfIssue30sScenarios() {
        FaultOptions defaults = FaultOptions.parse(new String[] { "--scenarios=slow-disk,disk-full", "--runs=2" });
        assertThat(defaults.scenarios()).containsExactly("slow-disk", "disk-full");
        assertThat(defaults.runs()).isEqualTo(2);
        assertThat(defaults.rates().get("slow-disk")).as("issue 30: 3 000 lines/s").isEqualTo(3000);
        assertThat(defaults.rates().get("disk-full")).isEqualTo(3000);
        assertThat(defaults.days()).as("the main job's 100 000 lines").isEqualTo(50);
        assertThat(defaults.diskDelay()).as("100 ms per fsync").isEqualTo(100);
        assertThat(defaults.storeMegabytes()).as("75 % of it holds a 1 GiB max_bytes").isEqualTo(2048);
        assertThat(defaults.fullFor()).isEqualTo(20);

        FaultOptions set = FaultOptions.parse(new String[] { "--scenarios=disk-full", "--disk-delay=20",
                "--store-mb=64", "--full-for=45", "--rate=1000" });
        assertThat(set.diskDelay()).isEqualTo(20);
        assertThat(set.storeMegabytes()).isEqualTo(64);
        assertThat(set.fullFor()).isEqualTo(45);
        assertThat(set.rates().get("disk-full")).isEqualTo(1000);
        assertThatThrownBy(() -> FaultOptions.parse(new String[] { "--store-mb=0" }))
            .hasMessageContaining("--store-mb must be at least 1, got 0");
        assertThatThrownBy(() -> FaultOptions.parse(new String[] { "--disk-delay=slow" }))
            .hasMessageContaining("--disk-delay must be a number, got 'slow'");
        assertThatThrownBy(() -> FaultOptions.parse(new String[] { "--scenarios=slow-disks" }))
            .hasMessageContaining("unknown scenario");
    }

    @Test
    void optionsOfIssue41sScenarios() {
        FaultOptions defaults = FaultOptions.parse(new String[] { "--scenarios=no-fault,slow-disk,leader-churn" });
        assertThat(defaults.scenarios()).containsExactly("no-fault", "slow-disk", "leader-churn");
        assertThat(defaults.rates().get("no-fault")).as("slow-disk's rate").isEqualTo(3000);
        assertThat(defaults.rates().get("leader-churn")).isEqualTo(3000);
        assertThat(defaults.stateMoveAt()).as("issue 30's harness: moved as soon as it exists").isEqualTo(-1);
        assertThat(defaults.stepEvery()).as("a step-down every 10 s").isEqualTo(10);

        assertThat(defaults.holdSteps()).as("issue 30's hold").isEqualTo(10);
        assertThat(defaults.nodeEnv()).isEmpty();

        FaultOptions set = FaultOptions
            .parse(new String[] { "--state-move-at=20", "--step-every=5", "--hold-steps=1", "--node-env=A=1,B=x=y" });
        assertThat(set.stateMoveAt()).isEqualTo(20);
        assertThat(set.stepEvery()).isEqualTo(5);
        assertThat(set.holdSteps()).isEqualTo(1);
        assertThat(set.nodeEnv()).containsEntry("A", "1").containsEntry("B", "x=y");
        assertThatThrownBy(() -> FaultOptions.parse(new String[] { "--step-every=0" }))
            .hasMessageContaining("--step-every must be at least 1, got 0");
    }

    @Test
    void optionsOfIssue43sPowerLoss() {
        FaultOptions defaults = FaultOptions.parse(new String[] { "--scenarios=power-loss", "--runs=3" });
        assertThat(defaults.scenarios()).containsExactly("power-loss");
        assertThat(defaults.rates().get("power-loss")).as("the main job at 3 000 lines/s").isEqualTo(3000);
        assertThat(defaults.powerLossAt()).as("about 8 s into the stream").isEqualTo(8);
        assertThat(defaults.powerOff()).as("restarted 3 s after the kill").isEqualTo(3);
        assertThat(defaults.syncs()).as("sync_interval: always, then the server's default")
            .containsExactly("always", "default");

        FaultOptions one = FaultOptions
            .parse(new String[] { "--scenarios=power-loss", "--syncs=default", "--power-loss-at=12", "--power-off=5" });
        assertThat(one.syncs()).containsExactly("default");
        assertThat(one.powerLossAt()).isEqualTo(12);
        assertThat(one.powerOff()).isEqualTo(5);
        assertThatThrownBy(() -> FaultOptions.parse(new String[] { "--syncs=never" }))
            .hasMessageContaining("--syncs takes [always, default]");
        assertThatThrownBy(() -> FaultOptions.parse(new String[] { "--power-off=0" }))
            .hasMessageContaining("--power-off must be at least 1");
    }

    @Test
    void powerLossPassesWithTheDefaultSyncOnlyWhenTheLossIsNamedAndTheClusterRecovered() throws Exception {
        Row inexact = new Row("power-loss-default", 1, false, 26200, 19404, "0", 0, 800, 800, new Row.Twice(0, 0, 6796),
                "-", "exit 1, result FAILED");
        PowerLoss.Recovery flowed = new PowerLoss.Recovery("after the restart ...", true, "new events after 9.1 s");
        PowerLoss.Recovery stuck = new PowerLoss.Recovery("after the restart ...", false, "-");
        List<String> named = List.of("worker-1: stream VARPULIS_ROUTING went back");

        assertThat(PowerLoss.verdict(inexact, "default", named, flowed).passed()).isTrue();
        assertThat(PowerLoss.verdict(inexact, "default", List.of(), flowed).notes())
            .startsWith("not exact and no loss named: lost silently");
        assertThat(PowerLoss.verdict(inexact, "default", List.of(), flowed).passed()).isFalse();
        assertThat(PowerLoss.verdict(inexact, "default", named, stuck).passed()).isFalse();
        assertThat(PowerLoss.verdict(inexact, "always", named, flowed).passed()).as("always: exact or nothing")
            .isFalse();
        Row exact = new Row("power-loss-always", 1, true, 26200, 26200, "0", 0, 800, 800, new Row.Twice(0, 0, 0), "-",
                "");
        assertThat(PowerLoss.verdict(exact, "always", List.of(), flowed).passed()).isTrue();
        assertThat(PowerLoss.verdict(exact, "always", named, flowed).notes()).startsWith("exact, but 1 losses named");

        Path summary = dir.resolve("summary.json");
        Files.writeString(summary, "{\"result\": \"FAILED\", \"losses\": [\"demo: stream X is gone\"]}");
        assertThat(PowerLoss.losses(summary)).containsExactly("demo: stream X is gone");
        assertThat(PowerLoss.losses(dir.resolve("none.json"))).isEmpty();
    }

    @Test
    void lazyFsMountsAreReadFromMountinfo() throws Exception {
        assertThat(LazyFsStores.mounted(dir)).as("a plain directory").isFalse();
    }

    @Test
    void slowDiskRunsN2UnderIssue30sStrace() {
        assertThat(String.join(" ", DiskFaults.slowFsync(100))).isEqualTo("strace -f -qq --seccomp-bpf -e "
                + "trace=fsync,fdatasync -e inject=fsync,fdatasync:delay_enter=100ms -o /dev/null");
        assertThat(LoopbackCluster.name(DiskFaults.SLOW)).isEqualTo("n2");
        assertThat(LoopbackCluster.index("n3")).isEqualTo(2);
        assertThat(LoopbackCluster.index("n4")).isEqualTo(-1);
    }

    @Test
    void matchesAdvisoriesToParkedEventsByStreamSequence() {
        assertThat(MaxDeliveriesWatch.parkedKey(null,
                ("{\"original_subject\":\"varpulis.cluster.pipeline.g.a.b\","
                        + "\"unit\":\"b\",\"attempts\":5,\"reason\":\"max_deliver\",\"stream\":\"VARPULIS_ROUTING\","
                        + "\"stream_sequence\":1234,\"parked_element\":3}")
                    .getBytes(StandardCharsets.UTF_8)))
            .isEqualTo("VARPULIS_ROUTING:1234");
        Headers raw = new Headers().add("Varpulis-Dlq-Original-Subject", "varpulis.cluster.pipeline.g.a.b")
            .add("Varpulis-Dlq-Stream", "VARPULIS_ROUTING")
            .add("Varpulis-Dlq-Stream-Sequence", "77");
        assertThat(MaxDeliveriesWatch.parkedKey(raw, new byte[] { 1, 2, 3 })).isEqualTo("VARPULIS_ROUTING:77");
        assertThat(MaxDeliveriesWatch.parkedKey(null, "{\"unit\":\"b\"}".getBytes(StandardCharsets.UTF_8)))
            .as("core: no stream sequence")
            .isNull();

        MaxDeliveriesWatch.Result result = new MaxDeliveriesWatch.Result(
                List.of(new MaxDeliveriesWatch.Advisory("VARPULIS_ROUTING", "route_detect", 1234, 5, 0),
                        new MaxDeliveriesWatch.Advisory("VARPULIS_ROUTING", "route_detect", 1300, 5, 0),
                        new MaxDeliveriesWatch.Advisory("VARPULIS_ROUTING", "route_alerts", 77, 5, 0)),
                Set.of("VARPULIS_ROUTING:1234", "VARPULIS_ROUTING:77"), 2);
        assertThat(result.matched()).isEqualTo(2);
        assertThat(result.byDurable())
            .isEqualTo("route_alerts 1 (1 parked) seq 77; route_detect 2 (1 parked) seq " + "1234,1300!");
        assertThat(new Row.Watched(3, 2, 0, -1, 12.5).silentlyDropped()).isTrue();
        assertThat(new Row.Watched(0, 0, 0, -1, 12.5).silentlyDropped()).isFalse();
    }

    @Test
    void readsPubAckOutcomes() {
        assertThat(StateWriteWatch.outcome("{\"stream\":\"KV_x\",\"seq\":5}".getBytes(StandardCharsets.UTF_8)))
            .isEqualTo("stored");
        assertThat(StateWriteWatch
            .outcome("{\"stream\":\"KV_x\",\"seq\":5,\"duplicate\":true}".getBytes(StandardCharsets.UTF_8)))
            .isEqualTo("duplicate");
        assertThat(StateWriteWatch
            .outcome(("{\"error\":{\"code\":400,\"err_code\":10071,\"description\":" + "\"wrong last sequence: 7\"}}")
                .getBytes(StandardCharsets.UTF_8)))
            .isEqualTo("10071");
        assertThat(StateWriteWatch.outcome(("{\"error\":{\"code\":503,\"err_code\":10158,\"description\":"
                + "\"duplicate message id is in process\"}}")
            .getBytes(StandardCharsets.UTF_8))).isEqualTo("10158");
    }

    @Test
    void fillsAFileSystemToItsLastPage() throws Exception {
        assertThat(DiskFaults.fill(Path.of("/dev/full"))).as("/dev/full refuses every write").isZero();
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
