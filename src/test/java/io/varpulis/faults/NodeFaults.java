package io.varpulis.faults;

import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.test.NatsServerExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Issue 25's faults of a node, each on one fresh JetStream server (file storage) with the
 * demo's nodes (three workers, one pipeline each) streaming the log at {@code --rate},
 * injected a third into the stream:
 * <ul>
 * <li>{@code pause-alerts}, {@code pause-detect}: the worker hosting that pipeline
 * stopped (SIGSTOP, as a long GC pause or a frozen VM) for {@code --pause} seconds, long
 * enough that its pipelines move (the demo's heartbeat-timeout is 4 s), then resumed
 * (SIGCONT). Measured from the workers' heartbeats: when another worker ran the pipeline,
 * and for how many seconds after the resume two workers both said they ran it;</li>
 * <li>{@code pause-leader}: two coordinators, the leading one stopped for {@code --pause}
 * seconds then resumed; measured from the leader lease: when another coordinator
 * led;</li>
 * <li>{@code clock-ahead}: two coordinators, every node under libfaketime, the leading
 * coordinator's wall clock moved {@code --skew} seconds ahead (its monotonic clock
 * untouched) 5 % into the stream until the end; measured from the heartbeats: for how
 * many seconds each pipeline ran on two workers.</li>
 * </ul>
 */
final class NodeFaults {

    private static final String[] PIPELINES = { "ingress", "detect", "alerts" };

    /**
     * How long the heartbeats are watched after a resume, for copies still running; the
     * stream must outlast a third of it, the pause and this, or the run does not count.
     */
    private static final long AFTER_RESUME_MILLIS = 5_000;

    private final DemoScenario demo;

    private final FaultOptions options;

    private final Path out;

    /**
     * @param demo the demo runner
     * @param options the suite's options ({@code --pause}, {@code --skew},
     * {@code --rate})
     * @param out where the libfaketime files go
     */
    NodeFaults(DemoScenario demo, FaultOptions options, Path out) {
        this.demo = demo;
        this.options = options;
        this.out = out;
    }

    /**
     * @param scenario {@code pause-alerts}, {@code pause-detect}, {@code pause-leader} or
     * {@code clock-ahead}
     * @param run the run number
     * @return the run's row
     */
    Row run(String scenario, int run) throws Exception {
        try (NatsServerExtension nats = NatsServerExtension.jetStream()) {
            nats.start();
            return switch (scenario) {
                case "pause-alerts" ->
                    demo.run(setup(scenario, run, nats, List.of(), Map.of()), d -> pauseWorker(d, "alerts"));
                case "pause-detect" ->
                    demo.run(setup(scenario, run, nats, List.of(), Map.of()), d -> pauseWorker(d, "detect"));
                case "pause-leader" ->
                    demo.run(setup(scenario, run, nats, List.of("--coordinators", "2"), Map.of()), this::pauseLeader);
                case "clock-ahead" -> clockAhead(run, nats);
                default -> throw new IllegalArgumentException("not a node fault: " + scenario);
            };
        }
    }

    private DemoScenario.Setup setup(String scenario, int run, NatsServerExtension nats, List<String> extra,
            Map<String, String> env) {
        List<String> arguments = new ArrayList<>(DemoScenario.THREE_WORKERS);
        arguments.addAll(extra);
        // The clock moves almost from the start, so that the leader has the rest of the
        // stream to act on it.
        double at = scenario.equals("clock-ahead") ? 0.05 : 1.0 / 3;
        return new DemoScenario.Setup(scenario, run, nats.url(), 1, options.rate(), arguments, env, at,
                scenario.equals("clock-ahead"));
    }

    private DemoScenario.Injected pauseWorker(RunningDemo running, String pipeline) throws Exception {
        String host = running.host(pipeline);
        long pid = running.pids().get(host);
        try (Connection connection = running.connect(); HeartbeatWatch watch = new HeartbeatWatch(connection)) {
            long stopped = System.nanoTime();
            long resumed = pause(pid);
            Thread.sleep(AFTER_RESUME_MILLIS);
            long moved = watch.movedAfter(pipeline, host, stopped);
            return new DemoScenario.Injected(
                    host + " (hosting " + pipeline + ") SIGSTOPped for " + options.pause() + " s, then SIGCONT; "
                            + pipeline + " on another worker " + (moved < 0 ? "never seen" : "after " + moved + " ms")
                            + ", on two workers in " + watch.secondsOnTwoWorkers(pipeline, resumed) + " s of the "
                            + AFTER_RESUME_MILLIS / 1000 + " s after the resume",
                    moved < 0 ? "not moved" : pipeline + " moved in " + seconds(moved));
        }
    }

    private DemoScenario.Injected pauseLeader(RunningDemo running) throws Exception {
        try (Connection connection = running.connect()) {
            KeyValue leases = connection.keyValue(ControlPlaneBuckets.LEADER);
            String leader = RunningDemo.leader(leases);
            if (leader == null) {
                return DemoScenario.Injected.note("no coordinator held the lease a third into the stream");
            }
            long pid = running.pids().get(leader);
            long stopped = System.nanoTime();
            Tools.signal(pid, "STOP");
            long takeover = -1;
            String next = null;
            try {
                while (System.nanoTime() - stopped < options.pause() * 1_000_000_000L) {
                    String now = RunningDemo.leader(leases);
                    if (takeover < 0 && now != null && !now.equals(leader)) {
                        takeover = (System.nanoTime() - stopped) / 1_000_000;
                        next = now;
                    }
                    Thread.sleep(200);
                }
            }
            finally {
                Tools.signal(pid, "CONT");
            }
            Thread.sleep(AFTER_RESUME_MILLIS);
            String after = RunningDemo.leader(leases);
            return new DemoScenario.Injected(
                    "leader " + leader + " SIGSTOPped for " + options.pause() + " s, then " + "SIGCONT; "
                            + (takeover < 0 ? "no other coordinator led meanwhile"
                                    : next + " led after " + takeover + " ms")
                            + "; leader " + after + " " + AFTER_RESUME_MILLIS / 1000 + " s after the resume",
                    takeover < 0 ? "no new leader" : "new leader in " + seconds(takeover));
        }
    }

    private Row clockAhead(int run, NatsServerExtension nats) throws Exception {
        Path clocks = Files.createDirectories(out.resolve("clock-ahead-" + run + "-faketime"));
        try (var files = Files.list(clocks)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Map<String, String> env = Map.of("VARPULIS_DEMO_NODE_ENV", Tools.fakeTimeNodeEnv(clocks));
        return demo.run(setup("clock-ahead", run, nats, List.of("--coordinators", "2"), env), running -> {
            String leader = running.leader();
            if (leader == null) {
                return DemoScenario.Injected.note("no coordinator held the lease a third into the stream");
            }
            try (Connection connection = running.connect(); HeartbeatWatch watch = new HeartbeatWatch(connection)) {
                long skewed = System.nanoTime();
                Files.writeString(clocks.resolve(leader), "+" + options.skew() + "s\n");
                Thread.sleep(options.pause() * 1000L + AFTER_RESUME_MILLIS);
                String twice = Arrays.stream(PIPELINES)
                    .map(p -> p + " " + watch.secondsOnTwoWorkers(p, skewed) + " s")
                    .collect(Collectors.joining(", "));
                return DemoScenario.Injected.note("leader " + leader + "'s clock " + options.skew() + " s ahead "
                        + "(libfaketime) from 5 % into the stream to the end; on two workers in the next "
                        + (options.pause() + AFTER_RESUME_MILLIS / 1000) + " s: " + twice);
            }
        });
    }

    /**
     * Stops a process for {@code --pause} seconds and resumes it, even when interrupted;
     * returns the resume time.
     */
    private long pause(long pid) throws Exception {
        Tools.signal(pid, "STOP");
        try {
            Thread.sleep(options.pause() * 1000L);
        }
        finally {
            Tools.signal(pid, "CONT");
        }
        return System.nanoTime();
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }

}
