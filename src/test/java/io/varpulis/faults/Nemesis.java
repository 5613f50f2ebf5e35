package io.varpulis.faults;

import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.NatsClusterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

/**
 * The soak's nemesis (issue 43): from the job's start until a quiet tail before its
 * stream ends, one fault at a time, each started {@code --every} seconds after the one
 * before (at least 10 s after it ended), drawn with the run's seed from the fault suite's
 * set:
 * <ul>
 * <li>{@code kill-worker}: a worker killed -9 and started again 5 s later (as the demo's
 * own kill, scenario c);</li>
 * <li>{@code pause}: a node (coordinator or worker) SIGSTOPped for {@code --pause}
 * seconds, then SIGCONT (issue 25's pause-*);</li>
 * <li>{@code step-down}: the routing stream or {@code detect}'s state bucket asked to
 * step its leader down (issue 41's leader-churn, once: {@link LeaderChurn});</li>
 * <li>{@code rolling-restart}: a node SIGTERMed (it drains) and started again, as a
 * Kubernetes rolling update does ({@link NodeRestarts});</li>
 * <li>{@code lame-duck}: a server put in lame-duck mode (SIGUSR2: its leaders move, its
 * clients are sent elsewhere over {@code lame_duck_duration}, 30 s here), exiting, and
 * started again on its store, as a NATS upgrade does;</li>
 * <li>{@code partition}: the one server the cluster made partitionable cut off from its
 * peers for {@code --cut} seconds while its clients stay connected to it
 * ({@link NatsClusterExtension#partition()}, a relay on its routes; the fault suite's
 * network-namespace partition needs a cluster of its own in namespaces).</li>
 * </ul>
 * The schedule (when, which, on which node, server or stream) depends on the seed only,
 * so {@code --seed} repeats it; what the system does in between does not repeat exactly.
 */
final class Nemesis {

    /** The nemeses, by name ({@code --nemeses}). */
    static final List<String> NAMES = List.of("kill-worker", "pause", "step-down", "rolling-restart", "lame-duck",
            "partition");

    private static final Duration DOWN_AFTER_KILL = Duration.ofSeconds(5);

    private static final Duration DRAIN = Duration.ofSeconds(90);

    private static final Duration LAME_DUCK_EXIT = Duration.ofSeconds(90);

    /** The streams a step-down picks from: routing, and {@code detect}'s state. */
    private static final List<String> STREAMS = List.of(VarpulisJetStream.ROUTING_STREAM, ServerFaults.DETECT_BUCKET);

    private final NatsClusterExtension cluster;

    private final SoakOptions options;

    private final Random random;

    private final ProcessSampler sampler;

    private final NodeRestarts restarts;

    private final Map<String, Long> nodes;

    private final int partitionable;

    private final Map<String, Integer> counts = new LinkedHashMap<>();

    private final List<double[]> marks = new ArrayList<>();

    private final List<String> done = new ArrayList<>();

    /**
     * @param cluster the servers
     * @param options the soak's options
     * @param random the run's random numbers, seeded
     * @param sampler the sampler, told of every process that goes or comes
     * @param restarts what starts nodes again
     * @param nodes node short name to process id ({@code demo} excluded), updated here
     * @param partitionable the server the cluster can cut off (its routes relayed)
     */
    Nemesis(NatsClusterExtension cluster, SoakOptions options, Random random, ProcessSampler sampler,
            NodeRestarts restarts, Map<String, Long> nodes, int partitionable) {
        this.cluster = cluster;
        this.options = options;
        this.random = random;
        this.sampler = sampler;
        this.restarts = restarts;
        this.nodes = nodes;
        this.partitionable = partitionable;
    }

    /**
     * Runs the schedule.
     * @param t0 {@link System#nanoTime()} when the job began streaming
     * @param lastStart no nemesis starts after this {@link System#nanoTime()}
     * @param demoAlive whether the demo still runs (the schedule stops when it ended)
     * @return what was done, for the notes
     */
    String run(long t0, long lastStart, BooleanSupplier demoAlive) throws InterruptedException {
        long next = t0 + gap();
        while (next <= lastStart && demoAlive.getAsBoolean()) {
            while (System.nanoTime() < next && demoAlive.getAsBoolean()) {
                Thread.sleep(200);
            }
            if (!demoAlive.getAsBoolean()) {
                break;
            }
            String name = options.nemeses().get(random.nextInt(options.nemeses().size()));
            int target = random.nextInt(1_000_000);
            double minute = (System.nanoTime() - t0) / 60e9;
            String what;
            try {
                what = inject(name, target);
            }
            catch (Exception e) {
                what = name + " failed: " + e;
            }
            String line = String.format(Locale.ROOT, "%.1f min: %s", minute, what);
            System.out.println("soak: " + line);
            synchronized (this) {
                counts.merge(name, 1, Integer::sum);
                marks.add(new double[] { minute, NAMES.indexOf(name) });
                done.add(line);
            }
            next = Math.max(next + gap(), System.nanoTime() + 10_000_000_000L);
        }
        synchronized (this) {
            return "nemeses " + counts + ": " + String.join("; ", done);
        }
    }

    /**
     * @return when each nemesis started (minute) and which ({@link #NAMES} index)
     */
    synchronized List<double[]> marks() {
        return List.copyOf(marks);
    }

    /**
     * @return how many of each nemesis ran
     */
    synchronized Map<String, Integer> counts() {
        return Map.copyOf(counts);
    }

    private long gap() {
        return (options.everyMin() + random.nextInt(options.everyMax() - options.everyMin() + 1)) * 1_000_000_000L;
    }

    private String inject(String name, int target) throws Exception {
        List<String> workers = nodes.keySet().stream().filter(n -> n.startsWith("worker")).sorted().toList();
        List<String> all = nodes.keySet().stream().sorted().toList();
        return switch (name) {
            case "kill-worker" -> restart(workers.get(target % workers.size()), "KILL");
            case "rolling-restart" -> restart(all.get(target % all.size()), "TERM");
            case "pause" -> pause(all.get(target % all.size()));
            case "step-down" -> stepDown(STREAMS.get(target % STREAMS.size()));
            case "lame-duck" -> lameDuck(target % cluster.size());
            case "partition" -> partition();
            default -> throw new IllegalArgumentException("no nemesis " + name);
        };
    }

    private String restart(String node, String signal) throws Exception {
        long pid = nodes.get(node);
        NodeRestarts.Launch launch = NodeRestarts.launchOf(pid);
        sampler.untrack(node);
        long stopped = NodeRestarts.stop(pid, signal, signal.equals("KILL") ? Duration.ofSeconds(10) : DRAIN);
        if (signal.equals("KILL")) {
            Thread.sleep(DOWN_AFTER_KILL.toMillis());
        }
        long starting = System.nanoTime();
        Process process = restarts.start(launch);
        nodes.put(node, process.pid());
        sampler.track(node, process.pid());
        String ready = String.format(Locale.ROOT, "ready in %.1f s (pid %d)", (System.nanoTime() - starting) / 1e9,
                process.pid());
        return signal.equals("KILL")
                ? "kill-worker " + node + " (pid " + pid + ") killed -9, started again after "
                        + DOWN_AFTER_KILL.toSeconds() + " s, " + ready
                : String.format(Locale.ROOT, "rolling-restart %s (pid %d) SIGTERMed, exited in %.1f s, %s", node, pid,
                        stopped / 1000.0, ready);
    }

    private String pause(String node) throws Exception {
        long pid = nodes.get(node);
        Tools.signal(pid, "STOP");
        try {
            Thread.sleep(options.pause() * 1000L);
        }
        finally {
            Tools.signal(pid, "CONT");
        }
        return "pause " + node + " (pid " + pid + ") SIGSTOPped for " + options.pause() + " s, then SIGCONT";
    }

    private String stepDown(String stream) throws Exception {
        List<String> urls = IntStream.range(0, cluster.size()).mapToObj(cluster::url).toList();
        long asked = System.nanoTime();
        try (LeaderChurn once = new LeaderChurn(urls, List.of(stream), Duration.ofHours(1), "soak")) {
            while (once.stepDowns(stream) == 0 && System.nanoTime() - asked < 30_000_000_000L) {
                Thread.sleep(100);
            }
            return "step-down " + once.note();
        }
    }

    private String lameDuck(int server) throws Exception {
        long pid = cluster.pid(server);
        long signalled = System.nanoTime();
        Tools.signal(pid, "USR2");
        while (cluster.isRunning(server) && System.nanoTime() - signalled < LAME_DUCK_EXIT.toNanos()) {
            Thread.sleep(200);
        }
        double exited = (System.nanoTime() - signalled) / 1e9;
        if (cluster.isRunning(server)) {
            cluster.stop(server);
        }
        long starting = System.nanoTime();
        cluster.start(server);
        return String.format(Locale.ROOT,
                "lame-duck %s (pid %d) put in lame-duck mode (SIGUSR2), exited after %.1f s, started again "
                        + "(accepting clients in %.1f s)",
                cluster.name(server), pid, exited, (System.nanoTime() - starting) / 1e9);
    }

    private String partition() throws Exception {
        cluster.partition();
        try {
            Thread.sleep(options.cut() * 1000L);
        }
        finally {
            cluster.heal();
        }
        return "partition " + cluster.name(partitionable) + " cut off from its peers for " + options.cut()
                + " s (its clients still on it), then healed";
    }

}
