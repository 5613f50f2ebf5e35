package io.varpulis.faults;

import io.varpulis.bench.Logging;
import io.varpulis.bench.NodeJvm;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.support.NatsServerBinaries;
import io.varpulis.test.NatsClusterExtension;
import io.varpulis.test.NatsServerExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Issue 11's fault suite: real nats-servers this harness starts, kills and restarts, the
 * main job run from the jar against them, and the figures of each scenario (events
 * expected, applied, parked, duplicated, alerts expected and got). Run it with
 * {@code scripts/faults.sh [--name=value...]} (see {@link FaultOptions}); it prints a
 * Markdown table for docs/RELIABILITY.md, writes it to {@code target/faults/results.md},
 * and exits 0 only when every run passed.
 * <ul>
 * <li>a: one server, file storage, killed -9 a third into the stream and restarted 5 s
 * later;</li>
 * <li>b: three servers, R3, the routing stream's leader killed -9 a third into the stream
 * (20 000 lines/s) and restarted 20 s later; the election is timed;</li>
 * <li>c: one server, a worker and the coordinator killed -9 together half-way
 * ({@code --kill worker+coordinator});</li>
 * <li>d: one server stopped a third into the stream, for 60 s;</li>
 * <li>e: bad input on a routing subject ({@link BadInputScenario});</li>
 * <li>sync: what {@code sync_interval: always} costs ({@link SyncIntervalCost});</li>
 * <li>issue 25's pause-alerts, pause-detect, pause-leader, clock-ahead
 * ({@link NodeFaults}), slow-fsync, small-store and partition
 * ({@link ServerFaults});</li>
 * <li>issue 30's slow-disk and disk-full ({@link DiskFaults});</li>
 * <li>issue 43's power-loss ({@link PowerLoss}).</li>
 * </ul>
 * Not a test: no class name ends in Test, so {@code ./mvnw verify} does not run it.
 */
public final class FaultMain {

    private static final Path OUT = Path.of("target", "faults");

    private FaultMain() {
    }

    public static void main(String[] args) throws Exception {
        Logging.warnAndAbove();
        FaultOptions options = FaultOptions.parse(args);
        StringBuilder whyNot = new StringBuilder();
        Optional<Path> jar = NodeJvm.findJar(options.jar(), whyNot);
        if (jar.isEmpty()) {
            System.err.println("faults: " + whyNot);
            System.exit(2);
        }
        Files.createDirectories(OUT);
        String server = NatsServerBinaries.find().map(Path::toString).orElse("(none)");
        System.out.println("faults: nats-server " + server + ", jar " + jar.get() + ", " + Instant.now());
        List<Row> rows = new ArrayList<>();
        DemoScenario demo = null;
        if (options.scenarios().stream().anyMatch(s -> !s.equals("e") && !s.equals("sync"))) {
            Path input = DemoScenario.input(options, OUT);
            demo = new DemoScenario(jar.get(), OUT, input);
            System.out.println("faults: the main job streams " + input);
        }
        System.out.println(Row.header());
        NodeFaults nodeFaults = new NodeFaults(demo, options, OUT);
        ServerFaults serverFaults = new ServerFaults(demo, options, OUT);
        DiskFaults diskFaults = new DiskFaults(demo, options, OUT);
        for (String scenario : options.scenarios()) {
            int runs = scenario.equals("sync") ? 1 : options.runs();
            for (int run = 1; run <= runs; run++) {
                List<Row> done = switch (scenario) {
                    case "a" -> List.of(oneServerKilled(demo, run, options));
                    case "b" -> List.of(leaderKilled(demo, run, options));
                    case "c" -> List.of(nodesKilled(demo, run, options));
                    case "d" -> List.of(natsDown(demo, run, options));
                    case "e" -> List.of(new BadInputScenario(jar.get(), OUT).run(run));
                    case "sync" -> List.of(new SyncIntervalCost().run());
                    case "slow-fsync" -> slowFsync(serverFaults, run, options);
                    case "small-store" -> List.of(serverFaults.smallStore(run));
                    case "partition" -> List.of(new PartitionedCluster(demo, options, OUT).run(run));
                    case "slow-disk" -> List.of(diskFaults.slowDisk(run));
                    case "disk-full" -> List.of(diskFaults.diskFull(run));
                    case "power-loss" -> new PowerLoss(demo, options, OUT).run(run);
                    default -> List.of(nodeFaults.run(scenario, run));
                };
                for (Row row : done) {
                    rows.add(row);
                    System.out.println(row.line());
                }
            }
        }
        StringBuilder table = new StringBuilder(Row.header()).append('\n');
        rows.forEach(r -> table.append(r.line()).append('\n'));
        Files.writeString(OUT.resolve("results.md"), table);
        System.out.println();
        System.out.print(table);
        System.out.println("(also written to " + OUT.resolve("results.md") + ")");
        System.exit(rows.stream().allMatch(Row::passed) ? 0 : 1);
    }

    private static List<Row> slowFsync(ServerFaults faults, int run, FaultOptions options) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (int delay : options.fsyncDelays()) {
            rows.add(faults.slowFsync(run, delay));
        }
        return rows;
    }

    private static DemoScenario.Setup setup(String scenario, int run, String url, int replicas, List<String> extra,
            double at, FaultOptions options) {
        return new DemoScenario.Setup(scenario, run, url, replicas, options.rates().get(scenario), extra, Map.of(), at,
                false);
    }

    private static Row oneServerKilled(DemoScenario demo, int run, FaultOptions options) throws Exception {
        try (NatsServerExtension nats = NatsServerExtension.jetStream()) {
            nats.start();
            return demo.run(setup("a", run, nats.url(), 1, List.of("--kill", "none"), 1.0 / 3, options), d -> {
                nats.kill();
                Thread.sleep(5000);
                nats.start();
                return DemoScenario.Injected.note("server killed -9 and restarted after 5 s");
            });
        }
    }

    private static Row leaderKilled(DemoScenario demo, int run, FaultOptions options) throws Exception {
        try (NatsClusterExtension cluster = NatsClusterExtension.ofThree()) {
            cluster.start();
            return demo.run(setup("b", run, cluster.url(), 3, List.of("--kill", "none"), 1.0 / 3, options), d -> {
                int leader = cluster.streamLeader(VarpulisJetStream.ROUTING_STREAM);
                long killed = System.nanoTime();
                cluster.kill(leader);
                long elected = awaitLeader(cluster, killed);
                Thread.sleep(Math.max(0, options.restart() * 1000L - (System.nanoTime() - killed) / 1_000_000));
                cluster.start(leader);
                return new DemoScenario.Injected(
                        "routing leader n" + (leader + 1) + " killed -9, new leader after "
                                + (elected < 0 ? "(none seen)" : elected + " ms") + ", restarted after "
                                + options.restart() + " s",
                        elected < 0 ? "no new leader" : "new routing leader in " + elected + " ms");
            });
        }
    }

    private static Row nodesKilled(DemoScenario demo, int run, FaultOptions options) throws Exception {
        try (NatsServerExtension nats = NatsServerExtension.jetStream()) {
            nats.start();
            // The demo kills them half-way itself (--kill-at defaults to half the lines)
            // and starts them again.
            return demo.run(setup("c", run, nats.url(), 1, List.of("--kill", "worker+coordinator"), 0, options), null);
        }
    }

    private static Row natsDown(DemoScenario demo, int run, FaultOptions options) throws Exception {
        try (NatsServerExtension nats = NatsServerExtension.jetStream()) {
            nats.start();
            return demo.run(setup("d", run, nats.url(), 1, List.of("--kill", "none"), 1.0 / 3, options), d -> {
                nats.stop();
                Thread.sleep(options.outage() * 1000L);
                nats.start();
                return DemoScenario.Injected.note("NATS stopped for " + options.outage() + " s");
            });
        }
    }

    /**
     * Polls until a server names a leader of the routing stream; ms since the kill, or -1
     * after 60 s.
     */
    private static long awaitLeader(NatsClusterExtension cluster, long killed) throws InterruptedException {
        while (System.nanoTime() - killed < 60_000_000_000L) {
            try {
                cluster.streamLeader(VarpulisJetStream.ROUTING_STREAM);
                return (System.nanoTime() - killed) / 1_000_000;
            }
            catch (IllegalStateException noLeaderYet) {
                Thread.sleep(100);
            }
        }
        return -1;
    }

}
