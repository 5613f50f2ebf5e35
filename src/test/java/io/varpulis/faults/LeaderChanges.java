package io.varpulis.faults;

import io.nats.client.Connection;
import io.varpulis.jetstream.VarpulisJetStream;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Issue 41's scenarios on slow-disk's topology (three servers, {@code sync_interval:
 * always} on all, R3 streams and state, two coordinators, three workers with one pipeline
 * each, {@code --rate} lines/s), with the same watches ({@link DiskFaults#finish}: the
 * max-deliveries advisories, heartbeats, every state write on the wire, the node logs):
 * <ul>
 * <li>{@code no-fault}: nothing injected, the figure slow-disk and leader-churn are
 * compared with on the same machine;</li>
 * <li>{@code leader-churn}: no slow disk; the routing stream and {@code detect}'s state
 * bucket each asked to step down every {@code --step-every} seconds (10 by default) for
 * the whole job ({@link LeaderChurn}).</li>
 * </ul>
 */
final class LeaderChanges {

    private static final long AFTER_REPORT_MILLIS = 3000;

    private final DemoScenario demo;

    private final FaultOptions options;

    private final Path out;

    private final DiskFaults disk;

    /**
     * @param demo the demo runner
     * @param options the suite's options
     * @param out where the servers' logs and the facts go
     * @param disk the disk faults, whose watches these scenarios share
     */
    LeaderChanges(DemoScenario demo, FaultOptions options, Path out, DiskFaults disk) {
        this.demo = demo;
        this.options = options;
        this.out = out;
        this.disk = disk;
    }

    /**
     * @param run the run number
     * @param churn whether the leaders are stepped down ({@code leader-churn}) or not
     * ({@code no-fault})
     * @return the run's row
     */
    Row run(int run, boolean churn) throws Exception {
        String scenario = churn ? "leader-churn" : "no-fault";
        String label = scenario + "-" + run;
        try (LoopbackCluster cluster = new LoopbackCluster(out, label, "sync_interval: always")) {
            cluster.start();
            try (Connection watcher = DiskFaults.connectAvoiding(cluster, -1);
                    MaxDeliveriesWatch advisories = new MaxDeliveriesWatch(watcher);
                    StateWriteWatch writes = new StateWriteWatch(watcher);
                    HeartbeatWatch beats = new HeartbeatWatch(watcher)) {
                LeaderChurn stepDowns = churn ? new LeaderChurn(cluster.urls(),
                        List.of(VarpulisJetStream.ROUTING_STREAM, DiskFaults.DETECT_STREAM),
                        Duration.ofSeconds(options.stepEvery()), label) : null;
                Row row;
                try {
                    row = demo.run(new DemoScenario.Setup(scenario, run, cluster.url(), 3, options.rate(),
                            DiskFaults.twoCoordinators(), options.nodeEnv(), 0, true), null);
                    Thread.sleep(AFTER_REPORT_MILLIS);
                }
                finally {
                    if (stepDowns != null) {
                        stepDowns.close();
                    }
                }
                StateWriteWatch.Result written = writes.result();
                return disk.finish(row, label, watcher, advisories, beats, written.publishes(),
                        List.of(stepDowns == null ? "no fault" : stepDowns.note(),
                                "leaders at the end " + DiskFaults.leaders(cluster.urls()), written.note()));
            }
        }
    }

}
