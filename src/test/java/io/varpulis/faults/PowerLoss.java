package io.varpulis.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StreamInfoOptions;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.RouteEdge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

/**
 * Issue 43's coordinated power loss: three clustered nats-servers
 * ({@link LoopbackCluster}) whose stores are each on a LazyFS mount of its own
 * ({@link LazyFsStores}), R3 streams and state, the main job of 100 000 lines streamed at
 * {@code --rate} (3 000 lines/s) by two coordinators and three workers with one pipeline
 * each. {@code --power-loss-at} seconds into the stream (8) all three servers are
 * SIGKILLed at once and every store's unsynced data dropped at once (LazyFS's
 * {@code lazyfs::clear-cache}, as a power loss drops the page cache), and the servers
 * started again {@code --power-off} seconds (3) after the kill, on what their disks kept.
 * Run once per {@code --syncs}:
 * <ul>
 * <li>{@code always}: {@code sync_interval: always} on every server (every write synced
 * before it is acknowledged): the job must be exact;</li>
 * <li>{@code default}: the server's default (a sync every 2 minutes): what was written
 * since the last sync is gone, here everything (the job is younger than 2 minutes), so
 * the servers come back without streams, consumers or buckets.</li>
 * </ul>
 * Each row adds the bytes the stores held before the loss and after it, when the routing
 * stream existed again after the restart and when new events were stored on the ingress
 * edge and on {@code detect}'s input edge (the cluster recovering by itself), the
 * max-deliveries advisories and the node logs' facts.
 */
final class PowerLoss {

    /** The syncs this scenario knows. */
    static final List<String> SYNCS = List.of("always", "default");

    /**
     * Every server's JetStream store limit: LazyFS reports no free space, so without it
     * JetStream has no storage and refuses placement (issue 43: "a store whose file
     * system reports little free space made JetStream refuse placement").
     */
    static final String MAX_FILE_STORE = "max_file_store: 4GB";

    /** LazyFS's cache per server, MB: what the job writes unsynced must fit. */
    private static final int CACHE_MEGABYTES = 1024;

    /** How long after the restart the recovery is watched at most. */
    private static final Duration WATCHED_FOR = Duration.ofMinutes(10);

    /**
     * When the servers' meta groups are asked about, the routing stream still absent
     * after the restart.
     */
    private static final Duration META_ASKED_AFTER = Duration.ofSeconds(30);

    /** The edge into {@code detect}: events that passed a pipeline after the restart. */
    private static final RouteEdge INTO_DETECT = new RouteEdge("ssh-bruteforce", "ingress", "detect");

    private final DemoScenario demo;

    private final FaultOptions options;

    private final Path out;

    /**
     * @param demo the demo runner
     * @param options the suite's options
     * @param out where the servers' logs and the facts go
     */
    PowerLoss(DemoScenario demo, FaultOptions options, Path out) {
        this.demo = demo;
        this.options = options;
        this.out = out;
    }

    /**
     * @param run the run number
     * @return one row per {@code --syncs}
     */
    List<Row> run(int run) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String sync : options.syncs()) {
            rows.add(run(run, sync));
        }
        return rows;
    }

    private Row run(int run, String sync) throws Exception {
        String scenario = "power-loss-" + sync;
        String label = scenario + "-" + run;
        String jetStream = MAX_FILE_STORE + (sync.equals("always") ? "\n  sync_interval: always" : "");
        try (LoopbackCluster cluster = new LoopbackCluster(out, label, jetStream);
                LazyFsStores stores = new LazyFsStores(
                        IntStream.range(0, LoopbackCluster.SIZE).mapToObj(cluster::store).toList(), CACHE_MEGABYTES,
                        () -> killAll(cluster))) {
            stores.mount();
            cluster.start();
            try (Connection watcher = connect(cluster);
                    MaxDeliveriesWatch advisories = new MaxDeliveriesWatch(watcher);
                    StateWriteWatch writes = new StateWriteWatch(watcher)) {
                AtomicReference<CompletableFuture<Recovery>> recovery = new AtomicReference<>(
                        CompletableFuture.completedFuture(new Recovery("no power loss", false, "-")));
                AtomicBoolean ended = new AtomicBoolean();
                double at = Math.min(0.9, options.powerLossAt() * (double) options.rate() / demo.lines());
                Row row = demo.run(
                        new DemoScenario.Setup(scenario, run, cluster.url(), 3, options.rate(),
                                DiskFaults.twoCoordinators(), Map.of(), at, false),
                        running -> powerLoss(cluster, stores, recovery, ended));
                ended.set(true);
                Recovery recovered = recovery.get().get();
                MaxDeliveriesWatch.Result parked = advisories.result(watcher);
                Path facts = out.resolve(label + "-facts.txt");
                var found = NodeLogFacts.scan(demo.nodeLogs(label), facts);
                List<String> losses = losses(out.resolve(label + "-summary.json"));
                String counted = countedLine(out.resolve(label + "-demo.log"));
                Row watched = row.with(new Row.Watched(parked.advisories().size(), parked.matched(),
                        found.getOrDefault("unhealthy", 0L), writes.result().publishes(), row.watched().seconds()),
                        true, "",
                        String.join("; ",
                                List.of(sync + " sync", recovered.note(),
                                        losses.size() + " losses named by " + "the job's report"
                                                + (losses.isEmpty() ? "" : ", the first: " + losses.get(0)),
                                        counted, parked.note(), writes.result().note(),
                                        NodeLogFacts.note(found, facts))));
                return verdict(watched, sync, losses, recovered);
            }
        }
    }

    /**
     * The bar of a run. With {@code sync_interval: always}: exact, and no loss named (a
     * loss named where nothing was lost is a false alarm). With the server's default: the
     * job ended with its report, and either it is exact, or what was lost is named in the
     * report and new events flowed through a pipeline after the restart (the cluster
     * recovered by itself); a run that is not exact and names nothing lost silently.
     */
    static Row verdict(Row row, String sync, List<String> losses, Recovery recovery) {
        boolean reported = !row.notes().contains("no --summary-json") && !row.notes().contains("did not end within");
        boolean passed;
        String why;
        if (sync.equals("always")) {
            passed = row.passed() && losses.isEmpty();
            why = row.passed() && !losses.isEmpty() ? "exact, but " + losses.size() + " losses named: a false alarm"
                    : "";
        }
        else if (row.passed()) {
            passed = true;
            why = "";
        }
        else {
            passed = reported && !losses.isEmpty() && recovery.flowed();
            why = !reported ? ""
                    : losses.isEmpty() ? "not exact and no loss named: lost silently"
                            : recovery.flowed() ? "not exact, as expected; the loss is named and the cluster recovered"
                                    : "the loss is named but no new event passed a pipeline after the restart";
        }
        return new Row(row.scenario(), row.run(), passed, row.expected(), row.applied(), row.parked(), row.duplicated(),
                row.alertsExpected(), row.alertsGot(), row.twice(), recovery.recovery(),
                why.isEmpty() ? row.notes() : why + "; " + row.notes(), row.watched());
    }

    /**
     * @return the {@code losses} of the job's summary, empty when there is none
     */
    static List<String> losses(Path summary) {
        List<String> losses = new ArrayList<>();
        try {
            new ObjectMapper().readTree(summary.toFile()).path("losses").forEach(l -> losses.add(l.asText()));
        }
        catch (IOException | RuntimeException none) {
            // No summary: the row says why.
        }
        return losses;
    }

    /**
     * @return the demo's line saying what each node's health listed and its meter counted
     * of the losses, or that there is none
     */
    static String countedLine(Path demoLog) {
        try (var lines = Files.lines(demoLog)) {
            return lines.filter(line -> line.startsWith("losses listed by each node's"))
                .reduce((first, last) -> last)
                .orElse("no losses listed or counted by the nodes");
        }
        catch (IOException | UncheckedIOException e) {
            return "no demo log: " + e.getMessage();
        }
    }

    /**
     * How the cluster came back after the restart.
     *
     * @param note when the routing stream and new events were seen, for the notes
     * @param flowed whether new events reached detect's input edge
     * @param recovery seconds from the restart to that, or {@code -}
     */
    record Recovery(String note, boolean flowed, String recovery) {
    }

    /**
     * The fault: all three servers SIGKILLed at once, their unsynced data dropped at
     * once, started again {@code --power-off} seconds after the kill.
     */
    private DemoScenario.Injected powerLoss(LoopbackCluster cluster, LazyFsStores stores,
            AtomicReference<CompletableFuture<Recovery>> recovery, AtomicBoolean ended) throws Exception {
        long[] seen = IntStream.range(0, LoopbackCluster.SIZE).mapToLong(stores::bytesSeen).toArray();
        long killedAt = System.nanoTime();
        killAll(cluster);
        long killMillis = (System.nanoTime() - killedAt) / 1_000_000;
        long clearMillis = stores.clearCaches();
        long[] kept = IntStream.range(0, LoopbackCluster.SIZE).mapToLong(stores::bytesBelow).toArray();
        Thread.sleep(Math.max(0, options.powerOff() * 1000L - (System.nanoTime() - killedAt) / 1_000_000));
        long restartAt = System.nanoTime();
        for (int i = 0; i < LoopbackCluster.SIZE; i++) {
            cluster.start(i);
        }
        long upMillis = (System.nanoTime() - restartAt) / 1_000_000;
        recovery.set(CompletableFuture.supplyAsync(() -> watchRecovery(cluster, restartAt, ended)));
        StringBuilder what = new StringBuilder(String.format(Locale.ROOT,
                "all three servers killed -9 within %d ms and their unsynced data dropped within %d ms; stores before/after"
                        + " the loss:",
                killMillis, clearMillis));
        for (int i = 0; i < LoopbackCluster.SIZE; i++) {
            what.append(String.format(Locale.ROOT, " %s %.1f/%.1f MB", LoopbackCluster.name(i), seen[i] / 1e6,
                    kept[i] / 1e6));
        }
        what.append(String.format(Locale.ROOT, "; started again %.1f s after the kill, accepting clients %d ms later",
                (restartAt - killedAt) / 1e9, upMillis));
        return new DemoScenario.Injected(what.toString(), "-");
    }

    /**
     * @return when, after the restart, the routing stream existed again, new events were
     * stored on the ingress edge and on detect's input edge; watched until all three were
     * seen, the job ended, or {@link #WATCHED_FOR}
     */
    private static Recovery watchRecovery(LoopbackCluster cluster, long restartAt, AtomicBoolean ended) {
        String stream = VarpulisJetStream.ROUTING_STREAM;
        long present = -1;
        long ingress = -1;
        long detect = -1;
        long ingressFirst = -1;
        long detectFirst = -1;
        String metaWhileAbsent = "";
        try (Connection connection = connect(cluster)) {
            JetStreamManagement jsm = connection.jetStreamManagement();
            while (System.nanoTime() - restartAt < WATCHED_FOR.toNanos() && (present < 0 || ingress < 0 || detect < 0)
                    && !ended.get()) {
                try {
                    var state = jsm.getStreamInfo(stream, StreamInfoOptions.allSubjects()).getStreamState();
                    long now = (System.nanoTime() - restartAt) / 1_000_000;
                    present = present < 0 ? now : present;
                    long in = count(state, DemoScenario.INPUT.subject());
                    long into = count(state, INTO_DETECT.subject());
                    ingressFirst = ingressFirst < 0 ? in : ingressFirst;
                    detectFirst = detectFirst < 0 ? into : detectFirst;
                    ingress = ingress < 0 && in > ingressFirst ? now : ingress;
                    detect = detect < 0 && into > detectFirst ? now : detect;
                }
                catch (Exception notYet) {
                    // No stream, no leader yet: asked again.
                }
                if (present < 0 && metaWhileAbsent.isEmpty()
                        && System.nanoTime() - restartAt > META_ASKED_AFTER.toNanos()) {
                    // Why JetStream does not place the streams again: its meta group.
                    metaWhileAbsent = cluster.metaGroups();
                }
                Thread.sleep(250);
            }
            if (present < 0) {
                metaWhileAbsent += (metaWhileAbsent.isEmpty() ? "" : "; at the end: ") + cluster.metaGroups();
            }
        }
        catch (Exception e) {
            return new Recovery("recovery not watched: " + e, false, "-");
        }
        String note = String.format(Locale.ROOT, (ended.get() && detect < 0 ? "the job ended first; " : "")
                + "after the restart: %s present %s (holding %d ingress and %d detect messages), new events stored on "
                + "the ingress edge %s, on detect's input edge %s", stream, seconds(present), Math.max(0, ingressFirst),
                Math.max(0, detectFirst), seconds(ingress), seconds(detect))
                + (metaWhileAbsent.isEmpty() ? "" : "; the meta group " + META_ASKED_AFTER.toSeconds()
                        + " s after the restart, " + stream + " still absent: " + metaWhileAbsent);
        return new Recovery(note, detect >= 0, detect < 0 ? "-"
                : String.format(Locale.ROOT, "new events through ingress %.1f s after the restart", detect / 1000.0));
    }

    private static long count(io.nats.client.api.StreamState state, String subject) {
        return state.getSubjects() == null ? 0
                : state.getSubjects()
                    .stream()
                    .filter(s -> s.getName().equals(subject))
                    .mapToLong(io.nats.client.api.Subject::getCount)
                    .sum();
    }

    private static String seconds(long millis) {
        return millis < 0 ? "never (within " + WATCHED_FOR.toMinutes() + " min)"
                : String.format(Locale.ROOT, "after %.1f s", millis / 1000.0);
    }

    /** SIGKILLs the three servers at once (one thread each). */
    private static void killAll(LoopbackCluster cluster) {
        IntStream.range(0, LoopbackCluster.SIZE)
            .mapToObj(i -> CompletableFuture.runAsync(() -> cluster.kill(i)))
            .toList()
            .forEach(CompletableFuture::join);
    }

    private static Connection connect(LoopbackCluster cluster) throws Exception {
        return Nats.connect(new Options.Builder().servers(cluster.urls().toArray(String[]::new))
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(-1)
            .build());
    }

}
