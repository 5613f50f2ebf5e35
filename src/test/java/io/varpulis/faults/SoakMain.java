package io.varpulis.faults;

import io.varpulis.bench.Logging;
import io.varpulis.bench.NodeJvm;
import io.varpulis.support.NatsServerBinaries;
import io.varpulis.test.NatsClusterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 43's soak: the main job streaming at a steady rate for {@code --minutes} on three
 * nats-servers ({@code sync_interval: always}, R3 streams and state) with two
 * coordinators and three workers, a seeded random {@link Nemesis} every 1 to 3 minutes,
 * and every node process (and the demo's feeder JVM) sampled every 10 s
 * ({@link ProcessSampler}). It prints the seed and the command that repeats the run, the
 * demo's verdict as the fault suite's row (exact: every line applied once, the reference
 * alerts, nothing parked or twice), and per series each metric's slope over the last 20
 * minutes and whether it is flat ({@link SoakTrend}); it writes the samples
 * ({@code samples.csv}), the report ({@code report.md}) and a plot ({@code soak.svg})
 * under {@code target/soak/<run>/}. Exit 0 only when the job was exact and every judged
 * series flat. Run it with {@code scripts/soak.sh [--minutes N] [--seed S]}; not a test.
 */
public final class SoakMain {

    private static final Pattern DEMO_NODE = Pattern.compile("demo-(\\d+)-(.+)");

    private static final Duration PLACEMENT = Duration.ofMinutes(5);

    private SoakMain() {
    }

    public static void main(String[] args) throws Exception {
        Logging.warnAndAbove();
        SoakOptions options;
        try {
            options = SoakOptions.parse(args, ThreadLocalRandom.current().nextLong(1, 1_000_000_000L));
        }
        catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            System.exit(2);
            return;
        }
        StringBuilder whyNot = new StringBuilder();
        Optional<Path> jar = NodeJvm.findJar(options.jar(), whyNot);
        if (jar.isEmpty()) {
            System.err.println("soak: " + whyNot);
            System.exit(2);
        }
        String started = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
        Path out = Files.createDirectories(Path.of("target", "soak", started + "-" + options.minutes() + "min"));
        Path input = DemoScenario.input(FaultOptions.parse(new String[] { "--days=" + options.days() }),
                Files.createDirectories(Path.of("target", "faults")));
        DemoScenario demo = new DemoScenario(jar.get(), out, input, Duration.ofMinutes(options.minutes() + 20L));
        int rate = options.paceFor(demo.lines());
        Random random = new Random(options.seed());
        int partitionable = random.nextInt(3);
        System.out.printf("soak: seed %d (repeat: %s)%n", options.seed(), options.repeat());
        System.out.printf(
                "soak: nats-server %s, jar %s, %s; the job streams %s (%d lines) at %d lines/s for about %d "
                        + "min; nemeses %s every %d-%d s; output %s%n",
                NatsServerBinaries.find().map(Path::toString).orElse("(none)"), jar.get(), Instant.now(), input,
                demo.lines(), rate, options.minutes(), options.nemeses(), options.everyMin(), options.everyMax(), out);
        AtomicReference<ProcessSampler> sampler = new AtomicReference<>();
        AtomicReference<Nemesis> nemesis = new AtomicReference<>();
        Row row;
        try (NatsClusterExtension cluster = cluster(options, partitionable);
                NodeRestarts restarts = new NodeRestarts()) {
            cluster.start();
            try {
                row = demo.run(new DemoScenario.Setup("soak", 1, cluster.url(), 3, rate, DiskFaults.twoCoordinators(),
                        Map.of(), 0, false), running -> {
                            long t0 = awaitPlacement(running);
                            sampler.set(new ProcessSampler(out.resolve("samples.csv"), t0));
                            Map<String, Long> nodes = new ConcurrentHashMap<>();
                            long demoPid = -1;
                            for (Map.Entry<String, Long> node : running.pids().entrySet()) {
                                Matcher name = DEMO_NODE.matcher(node.getKey());
                                String shortName = name.matches() ? name.group(2) : node.getKey();
                                demoPid = name.matches() ? Long.parseLong(name.group(1)) : demoPid;
                                nodes.put(shortName, node.getValue());
                                sampler.get().track(shortName, node.getValue());
                            }
                            if (demoPid > 0) {
                                sampler.get().track("demo", demoPid);
                            }
                            long streamNanos = (long) (demo.lines() * 1e9 / rate);
                            long tail = Math.min(150_000_000_000L, streamNanos / 4);
                            nemesis.set(new Nemesis(cluster, options, random, sampler.get(), restarts, nodes,
                                    partitionable));
                            long feeder = demoPid;
                            String done = nemesis.get()
                                .run(t0, t0 + streamNanos - tail,
                                        () -> ProcessHandle.of(feeder).map(ProcessHandle::isAlive).orElse(false));
                            return DemoScenario.Injected.note("seed " + options.seed() + "; " + done);
                        });
            }
            finally {
                if (sampler.get() != null) {
                    sampler.get().close();
                }
            }
        }
        List<SoakSample> samples = sampler.get() == null ? List.of() : sampler.get().samples();
        List<SoakTrend.Judged> judged = SoakTrend.judge(samples);
        boolean flat = judged.stream().allMatch(SoakTrend.Judged::flat);
        long judgedCount = judged.stream().filter(SoakTrend.Judged::judged).count();
        String title = String.format("Soak %d min, seed %d: %s, %s", options.minutes(), options.seed(),
                row.passed() ? "exact" : "NOT exact",
                judgedCount == 0 ? "no series judged" : flat ? "flat" : "NOT flat");
        if (!samples.isEmpty()) {
            SoakPlot.write(samples, nemesis.get() == null ? List.of() : nemesis.get().marks(), title,
                    out.resolve("soak.svg"));
        }
        String report = "# " + title + "\n\nCommand: `" + options.repeat() + "`, " + demo.lines() + " lines at " + rate
                + " lines/s, nemeses " + (nemesis.get() == null ? "{}" : nemesis.get().counts()) + "\n\n" + Row.header()
                + "\n" + row.line() + "\n\nSlopes over the last " + (int) SoakTrend.WINDOW_MINUTES + " minutes (from "
                + (int) SoakTrend.WARM_UP_MINUTES + " min after each process started; flat: |RSS| < "
                + SoakTrend.Metric.RSS.threshold() + " MB/min, |heap after GC| < " + SoakTrend.Metric.HEAP.threshold()
                + " MB/min, |threads| and |fds| < " + SoakTrend.Metric.THREADS.threshold() + "/min; ** not flat):\n\n"
                + SoakTrend.table(judged) + "\nSamples: samples.csv; plot: soak.svg\n";
        Files.writeString(out.resolve("report.md"), report);
        System.out.println();
        System.out.println(report);
        System.out.println("(also written to " + out.resolve("report.md") + ")");
        System.exit(row.passed() && flat ? 0 : 1);
    }

    private static NatsClusterExtension cluster(SoakOptions options, int partitionable) {
        // lame_duck_duration: 30 s rather than the server's 2 minutes, so that a
        // lame-duck restart fits between two nemeses.
        NatsClusterExtension cluster = NatsClusterExtension.ofThree()
            .withJetStream("sync_interval: always")
            .withConfig("lame_duck_duration: 30s\nlame_duck_grace_period: 10s");
        return options.nemeses().contains("partition") ? cluster.withPartitionableServer(partitionable) : cluster;
    }

    /**
     * @return {@link System#nanoTime()} once the demo printed its nodes and placement (it
     * streams from then on)
     */
    private static long awaitPlacement(RunningDemo running) throws Exception {
        long deadline = System.nanoTime() + PLACEMENT.toNanos();
        while (true) {
            try {
                running.pids();
                running.host("detect");
                return System.nanoTime();
            }
            catch (IllegalStateException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.sleep(500);
            }
        }
    }

}
