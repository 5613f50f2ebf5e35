package io.varpulis.faults;

import io.nats.client.Connection;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.test.NatsClusterExtension;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Issue 25's faults of a server, each on three fresh clustered nats-servers with R3
 * streams and state, the demo streaming the log at {@code --rate}:
 * <ul>
 * <li>{@code slow-fsync}: every server with {@code sync_interval: always}; a third into
 * the stream, the server leading the routing stream and the one leading {@code detect}'s
 * state bucket (often the same) get every fsync and fdatasync delayed by 20 ms, then 100
 * ms in a second run ({@code --fsync-delays}), with strace's fault injection, for
 * {@code --slow-for} seconds;</li>
 * <li>{@code small-store}: one server with a 64 MB {@code max_file_store} from the
 * start;</li>
 * <li>{@code partition}: see {@link PartitionedCluster}.</li>
 * </ul>
 */
final class ServerFaults {

    /**
     * The demo's group and its stateful pipeline, whose bucket's leader is slowed too.
     */
    static final String DETECT_BUCKET = "KV_"
            + JetStreamKeyValueState.bucketName("ssh-bruteforce", "detect", Partitioning.NONE);

    private final DemoScenario demo;

    private final FaultOptions options;

    private final Path out;

    /**
     * @param demo the demo runner
     * @param options the suite's options
     * @param out where strace's output goes
     */
    ServerFaults(DemoScenario demo, FaultOptions options, Path out) {
        this.demo = demo;
        this.options = options;
        this.out = out;
    }

    /**
     * @param run the run number
     * @param delay each fsync's delay, ms
     * @return the run's row, scenario {@code slow-fsync N ms}
     */
    Row slowFsync(int run, int delay) throws Exception {
        try (NatsClusterExtension cluster = NatsClusterExtension.ofThree().withJetStream("sync_interval: always")) {
            cluster.start();
            String scenario = "slow-fsync-" + delay + "ms";
            return demo.run(setup(scenario, run, cluster), running -> {
                Set<Integer> slowed = new LinkedHashSet<>(
                        List.of(cluster.streamLeader(VarpulisJetStream.ROUTING_STREAM)));
                try {
                    slowed.add(cluster.streamLeader(DETECT_BUCKET));
                }
                catch (IllegalStateException noBucketLeader) {
                    // Its leader is the routing stream's, or not elected: the routing
                    // leader alone is slowed.
                }
                List<Process> straces = new ArrayList<>();
                try (Connection connection = running.connect(); HeartbeatWatch watch = new HeartbeatWatch(connection)) {
                    long slowedAt = System.nanoTime();
                    try {
                        for (int server : slowed) {
                            straces.add(Tools.slowFsync(cluster.pid(server), delay * 1000L,
                                    out.resolve(scenario + "-" + run + "-strace-" + cluster.name(server) + ".log")));
                        }
                        Thread.sleep(options.slowFor() * 1000L);
                    }
                    finally {
                        straces.forEach(Process::destroy);
                    }
                    String host = running.host("detect");
                    long moved = watch.movedAfter("detect", host, slowedAt);
                    return new DemoScenario.Injected(
                            "every fsync of " + String.join(" and ", slowed.stream().map(cluster::name).toList())
                                    + " (leading the routing stream and detect's state) " + "delayed " + delay
                                    + " ms for " + options.slowFor() + " s; detect "
                                    + (moved < 0 ? "not moved" : "moved off " + host + " after " + moved + " ms"),
                            moved < 0 ? "detect not moved" : "detect moved in " + moved + " ms");
                }
            });
        }
    }

    /**
     * @param run the run number
     * @return the run's row: one server's store is 64 MB, from the start
     */
    Row smallStore(int run) throws Exception {
        try (NatsClusterExtension cluster = NatsClusterExtension.ofThree().withJetStream(2, "max_file_store: 64MB")) {
            cluster.start();
            return demo.run(setup("small-store", run, cluster), running -> DemoScenario.Injected
                .note(cluster.name(2) + " has max_file_store 64MB, the others the default"));
        }
    }

    private DemoScenario.Setup setup(String scenario, int run, NatsClusterExtension cluster) {
        return new DemoScenario.Setup(scenario, run, cluster.url(), 3, options.rate(), DemoScenario.THREE_WORKERS,
                Map.of(), 1.0 / 3, true);
    }

}
