package io.varpulis.faults;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.VarpulisJetStream;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Issue 30's disk faults, each on three fresh clustered nats-servers
 * ({@link LoopbackCluster}) with R3 streams and state, the main job of 100 000 lines
 * streamed at {@code --rate} (3 000 lines/s) by two coordinators and three workers with
 * one pipeline each:
 * <ul>
 * <li>{@code slow-disk}: issue 30 as reported. {@code sync_interval: always} on all three
 * servers, and n2 run from its start under
 * {@code strace -f -qq --seccomp-bpf -e trace=fsync,fdatasync -e
 * inject=fsync,fdatasync:delay_enter=100ms -o /dev/null} (every fsync and fdatasync of n2
 * takes {@code --disk-delay} ms more, for the whole run; with {@code --seccomp-bpf}
 * strace stops n2 at those calls only). n2 is made to lead {@code VARPULIS_ROUTING} and
 * {@code detect}'s state bucket by leader step-downs preferring it as soon as each
 * exists, and again whenever it loses them ({@link LeaderHold}); the row says whether it
 * held.</li>
 * <li>{@code disk-full}: every server's store is a tmpfs mount of {@code --store-mb} MB
 * (so that it can fill, and so that {@code sync_interval: always}, set on all three,
 * costs nothing); a third into the stream the store of the server a worker is connected
 * to (the worker hosting {@code detect} if it can) is filled to its last page by a file,
 * kept full for {@code --full-for} seconds, then freed; a server whose JetStream was
 * disabled meanwhile is restarted on its store, as an operator would. That worker's
 * readiness answer, with its {@code jetstream} component, is polled every second
 * throughout ({@link HealthPoll}).</li>
 * </ul>
 * Both watch, on the harness's own connection from before the job starts until after its
 * report, the server's max-deliveries advisories and the DLQ
 * ({@link MaxDeliveriesWatch}), the workers' heartbeats ({@link HeartbeatWatch});
 * slow-disk also every state write and its answer ({@link StateWriteWatch}); and both
 * read the node logs ({@link NodeLogFacts}). A run fails, besides the job's own checks,
 * on an advisory whose message was not parked, and (slow-disk, where every worker lives)
 * on a worker declared unhealthy.
 */
final class DiskFaults {

    /** n2, the slow server of issue 30. */
    static final int SLOW = 1;

    /** {@code detect}'s state bucket's stream. */
    static final String DETECT_STREAM = ServerFaults.DETECT_BUCKET;

    /**
     * Advisories and parks that come after the report are still counted for this long.
     */
    private static final long AFTER_REPORT_MILLIS = 3000;

    /** Step-downs per stream at most in a run. */
    private static final int MAX_STEP_DOWNS = 10;

    /**
     * A heartbeat gap over this is listed (the demo's nodes beat every second, dead after
     * 4 s).
     */
    private static final long GAP_LISTED_MILLIS = 2000;

    private final DemoScenario demo;

    private final FaultOptions options;

    private final Path out;

    /**
     * @param demo the demo runner
     * @param options the suite's options
     * @param out where the servers' logs, the facts and the configuration go
     */
    DiskFaults(DemoScenario demo, FaultOptions options, Path out) {
        this.demo = demo;
        this.options = options;
        this.out = out;
    }

    /**
     * @return the command n2 runs under: issue 30's strace, the delay
     * {@code --disk-delay}
     */
    static List<String> slowFsync(int delayMillis) {
        return List.of("strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=fsync,fdatasync", "-e",
                "inject=fsync,fdatasync:delay_enter=" + delayMillis + "ms", "-o", "/dev/null");
    }

    /**
     * @param run the run number
     * @return the run's row, scenario {@code slow-disk}
     */
    Row slowDisk(int run) throws Exception {
        String label = "slow-disk-" + run;
        try (LoopbackCluster cluster = new LoopbackCluster(out, label, "sync_interval: always").wrap(SLOW,
                slowFsync(options.diskDelay()))) {
            cluster.start();
            System.out.printf("%s: n2 runs under %s%n", label, String.join(" ", slowFsync(options.diskDelay())));
            String routing = routingLedBySlowServer(cluster, label);
            try (Connection watcher = connectAvoiding(cluster, SLOW);
                    MaxDeliveriesWatch advisories = new MaxDeliveriesWatch(watcher);
                    StateWriteWatch writes = new StateWriteWatch(watcher);
                    HeartbeatWatch beats = new HeartbeatWatch(watcher)) {
                LeaderHold hold = new LeaderHold(cluster.urls(), SLOW,
                        List.of(VarpulisJetStream.ROUTING_STREAM, DETECT_STREAM), MAX_STEP_DOWNS, label);
                Row row;
                try {
                    row = demo.run(new DemoScenario.Setup("slow-disk", run, cluster.url(), 3, options.rate(),
                            twoCoordinators(), Map.of(), 0, true), null);
                    Thread.sleep(AFTER_REPORT_MILLIS);
                }
                finally {
                    hold.close();
                }
                boolean held = hold.heldThroughout(VarpulisJetStream.ROUTING_STREAM)
                        && hold.heldThroughout(DETECT_STREAM);
                String leaders = leaders(cluster.urls()) + ", meta leader " + cluster.metaLeader();
                StateWriteWatch.Result written = writes.result();
                return finish(row, label, watcher, advisories, beats, written.publishes(),
                        List.of(routing,
                                (held ? "n2 led the routing stream and detect's state throughout: "
                                        : "NOT HELD THROUGHOUT by n2: ") + hold.note(),
                                "leaders at the end " + leaders, written.note()));
            }
        }
    }

    /**
     * @param run the run number
     * @return the run's row, scenario {@code disk-full}
     */
    Row diskFull(int run) throws Exception {
        String label = "disk-full-" + run;
        Path config = Files.createDirectories(out.resolve(label + "-config"));
        // Readiness answers without credentials; these make it show the jetstream
        // component's details too.
        Files.writeString(config.resolve("application.properties"), """
                management.endpoint.health.group.readiness.show-details=always
                management.endpoint.health.group.readiness.show-components=always
                """);
        Map<String, String> env = Map.of("VARPULIS_DEMO_NODE_ENV",
                "SPRING_CONFIG_ADDITIONAL_LOCATION=optional:file:" + config.toAbsolutePath() + "/");
        try (LoopbackCluster cluster = new LoopbackCluster(out, label, "sync_interval: always")
            .withTmpfsStores(options.storeMegabytes())) {
            cluster.start();
            try (Connection watcher = connectAvoiding(cluster, -1);
                    MaxDeliveriesWatch advisories = new MaxDeliveriesWatch(watcher);
                    HeartbeatWatch beats = new HeartbeatWatch(watcher)) {
                List<HealthPoll> polls = new ArrayList<>();
                Row row;
                try {
                    row = demo.run(
                            new DemoScenario.Setup("disk-full", run, cluster.url(), 3, options.rate(),
                                    DemoScenario.THREE_WORKERS, env, 1.0 / 3, false),
                            running -> fill(cluster, running, polls));
                    Thread.sleep(AFTER_REPORT_MILLIS);
                }
                finally {
                    for (HealthPoll poll : polls) {
                        poll.close();
                    }
                }
                List<String> notes = new ArrayList<>(polls.stream().map(HealthPoll::note).toList());
                for (int i = 0; i < LoopbackCluster.SIZE; i++) {
                    String log = LoopbackCluster.read(cluster.log(i));
                    notes.add(LoopbackCluster.name(i) + " logged 'will be DISABLED' " + count(log, "will be DISABLED")
                            + ", 'no space left' " + count(log, "no space left") + ", 'expected sequence does not "
                            + "match' " + count(log, "does not match store") + " times; JetStream "
                            + (cluster.jetStreamEnabled(i) ? "on" : "OFF") + " at the end");
                }
                return finish(row, label, watcher, advisories, beats, -1, notes);
            }
        }
    }

    /**
     * Creates the job's three streams as the demo does (the product's own declarations,
     * R3) and moves the routing stream's leadership to n2 while nothing else runs: the
     * demo then finds them as it would create them (created if absent, never updated) and
     * only purges them. Moved later, the election made the demo's own start-up purge time
     * out ("Timeout or no response waiting for NATS JetStream server"), a failure of the
     * demo, not of the fault.
     * @return what was done, for the notes
     */
    private static String routingLedBySlowServer(LoopbackCluster cluster, String label) throws Exception {
        try (Connection connection = Nats
            .connect(new Options.Builder().server(cluster.url(0)).connectionTimeout(Duration.ofSeconds(2)).build())) {
            new JetStreamAdmin(connection, null).provision(VarpulisJetStream.builtInStreams(3), List.of());
        }
        StreamLeaders.Move move = StreamLeaders.moveTo(cluster.urls(), VarpulisJetStream.ROUTING_STREAM, SLOW,
                MAX_STEP_DOWNS);
        String what = "meta leader " + cluster.metaLeader() + "; " + VarpulisJetStream.ROUTING_STREAM
                + " created by the harness as the demo creates it and "
                + (move.held() ? "led by n2 before the demo started (" + move.stepDowns() + " step-downs)"
                        : "NOT moved to n2 (" + move.stepDowns() + " step-downs)");
        System.out.printf("%s: %s%n", label, what);
        return what;
    }

    /** Two coordinators, three workers with one pipeline each (issue 30's topology). */
    static List<String> twoCoordinators() {
        List<String> extra = new ArrayList<>(DemoScenario.THREE_WORKERS);
        extra.addAll(List.of("--coordinators", "2"));
        return extra;
    }

    /**
     * The fault of disk-full: fills the store of a worker's server, keeps it full, frees
     * it, restarts the server if its JetStream was disabled.
     */
    private DemoScenario.Injected fill(LoopbackCluster cluster, RunningDemo running, List<HealthPoll> polls)
            throws Exception {
        Map<String, String> servers = new LinkedHashMap<>();
        for (String node : running.pids().keySet()) {
            if (node.contains("-worker-")) {
                running.serverOf(node).ifPresent(server -> servers.put(node, server));
            }
        }
        String detectHost = running.host("detect");
        String worker = servers.containsKey(detectHost) ? detectHost
                : servers.keySet().stream().findFirst().orElse(null);
        if (worker == null) {
            return DemoScenario.Injected.note("no worker logged the server it is connected to: nothing filled");
        }
        int target = LoopbackCluster.index(servers.get(worker));
        HealthPoll poll = new HealthPoll(worker, running.httpPort(worker));
        polls.add(poll);
        Thread.sleep(3000); // a few answers before the fault
        Path filler = cluster.store(target).resolve("filler");
        poll.mark();
        long filledAt = System.nanoTime();
        long bytes = fill(filler);
        long disabledAfter = -1;
        long deadline = filledAt + options.fullFor() * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            bytes += fill(filler); // what the server freed meanwhile is taken again: the
                                   // disk stays full
            if (disabledAfter < 0 && (!cluster.jetStreamEnabled(target)
                    || LoopbackCluster.read(cluster.log(target)).contains("will be DISABLED"))) {
                disabledAfter = (System.nanoTime() - filledAt) / 1_000_000;
                System.out.printf("disk-full: JetStream of %s disabled %d ms after its store filled%n",
                        LoopbackCluster.name(target), disabledAfter);
            }
            Thread.sleep(500);
        }
        Files.deleteIfExists(filler);
        String restarted = "";
        if (disabledAfter >= 0 || !cluster.jetStreamEnabled(target)) {
            long restartAt = System.nanoTime();
            cluster.kill(target);
            cluster.start(target);
            long on = -1;
            while (System.nanoTime() - restartAt < 60_000_000_000L) {
                if (cluster.jetStreamEnabled(target)) {
                    on = (System.nanoTime() - restartAt) / 1_000_000;
                    break;
                }
                Thread.sleep(250);
            }
            restarted = "; freed and restarted, JetStream on again after "
                    + (on < 0 ? "(not within 60 s)" : on + " ms");
        }
        else {
            restarted = "; freed, JetStream never off, not restarted";
        }
        String what = LoopbackCluster.name(target) + "'s store (" + options.storeMegabytes() + " MB tmpfs, " + worker
                + " connected to it" + (worker.equals(detectHost) ? ", hosting detect" : "") + ") filled with "
                + bytes / (1024 * 1024) + " MB for " + options.fullFor() + " s; JetStream "
                + (disabledAfter < 0 ? "never disabled meanwhile" : "disabled " + disabledAfter + " ms after")
                + restarted;
        return new DemoScenario.Injected(what, disabledAfter < 0 ? "-" : String.format(Locale.ROOT,
                "JetStream off on %s after %.1f s", LoopbackCluster.name(target), disabledAfter / 1000.0));
    }

    /**
     * Appends to a file until the file system refuses (1 MB writes, then 4 KB ones: a
     * tmpfs allocates pages).
     * @return bytes written
     */
    static long fill(Path file) throws IOException {
        long written = 0;
        try (OutputStream stream = new FileOutputStream(file.toFile(), true)) {
            for (int chunk : new int[] { 1024 * 1024, 4096 }) {
                byte[] zeros = new byte[chunk];
                while (true) {
                    try {
                        stream.write(zeros);
                        written += chunk;
                    }
                    catch (IOException full) {
                        break;
                    }
                }
            }
        }
        return written;
    }

    /** What every disk fault adds to the job's row. */
    private Row finish(Row row, String label, Connection watcher, MaxDeliveriesWatch advisories, HeartbeatWatch beats,
            long stateWrites, List<String> more) throws Exception {
        MaxDeliveriesWatch.Result parked = advisories.result(watcher);
        Path facts = out.resolve(label + "-facts.txt");
        Map<String, Long> found = NodeLogFacts.scan(demo.nodeLogs(label), facts);
        Row.Watched watched = new Row.Watched(parked.advisories().size(), parked.matched(),
                found.getOrDefault("unhealthy", 0L), stateWrites, row.watched().seconds());
        List<String> notes = new ArrayList<>(more);
        notes.add(parked.note());
        notes.add("heartbeats " + beats.gaps(GAP_LISTED_MILLIS));
        notes.add(beats.absence("detect"));
        notes.add(NodeLogFacts.note(found, facts));
        boolean silent = watched.silentlyDropped();
        return row.with(watched, !silent, silent
                ? (watched.advisories() - watched.parked()) + " max-deliveries advisories without a parked event" : "",
                String.join("; ", notes));
    }

    /**
     * @return every stream's and bucket's leader, and every consumer's, as the servers
     * name them
     */
    private static String leaders(List<String> urls) {
        try (Connection connection = Nats.connect(new Options.Builder().servers(urls.toArray(String[]::new))
            .connectionTimeout(Duration.ofSeconds(2))
            .build())) {
            Map<String, String> leaders = new LinkedHashMap<>();
            var jsm = connection.jetStreamManagement();
            for (String stream : jsm.getStreamNames()) {
                int leader = StreamLeaders.leader(urls, stream, -1);
                leaders.put(stream, leader < 0 ? "none" : LoopbackCluster.name(leader));
                for (var consumer : jsm.getConsumers(stream)) {
                    leaders.put(stream + " > " + consumer.getName(), consumer.getClusterInfo() == null ? "?"
                            : String.valueOf(consumer.getClusterInfo().getLeader()));
                }
            }
            return leaders.toString();
        }
        catch (Exception e) {
            return "(not read: " + e + ")";
        }
    }

    /**
     * @param avoid a server not to connect to (the slow one), or -1
     * @return the harness's connection for its watches: the servers in order, the avoided
     * one last, retried for ever
     */
    private static Connection connectAvoiding(LoopbackCluster cluster, int avoid) throws Exception {
        List<String> urls = new ArrayList<>(cluster.urls());
        if (avoid >= 0) {
            urls.add(urls.remove(avoid));
        }
        return Nats.connect(new Options.Builder().servers(urls.toArray(String[]::new))
            .noRandomize()
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(-1)
            .build());
    }

    private static long count(String text, String what) {
        return Stream.iterate(text.indexOf(what), i -> i >= 0, i -> text.indexOf(what, i + 1)).count();
    }

}
