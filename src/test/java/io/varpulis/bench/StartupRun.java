package io.varpulis.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Start-up of a worker node: from forking {@code java -jar target/varpulis-cluster-*.jar
 * --varpulis.cluster.role=worker} (JetStream, the benchmark's server, a coordinator
 * already running) to the first {@code UP} from {@code /actuator/health/readiness},
 * polled every 20 ms; with the node's RSS at that moment.
 */
final class StartupRun {

    private StartupRun() {
    }

    /**
     * @param rounds how many starts; the table shows each and the median
     */
    static Result run(Broker broker, Path jar, List<String> flags, int rounds, Path logDir) throws Exception {
        List<Double> seconds = new ArrayList<>();
        List<Long> rssKb = new ArrayList<>();
        List<Double> foreign = new ArrayList<>();
        try (NodeJvm coordinator = NodeJvm.start(jar, "startup-coordinator", flags,
                List.of("--varpulis.cluster.role=coordinator", "--varpulis.cluster.coordinator-id=startup"),
                broker.url(), logDir)) {
            coordinator.awaitReady();
            for (int round = 1; round <= rounds; round++) {
                CpuUsage.awaitQuiet(ThroughputRun.QUIET_PERCENT, ThroughputRun.QUIET_WAIT);
                CpuUsage before = CpuUsage.now();
                try (NodeJvm worker = NodeJvm.start(jar, "startup-worker-" + round, flags,
                        List.of("--varpulis.cluster.role=worker", "--varpulis.cluster.worker-id=startup-" + round),
                        broker.url(), logDir)) {
                    seconds.add(worker.awaitReady());
                    foreign.add(CpuUsage.now().foreignPercentSince(before));
                    rssKb.add(worker.statusKb("VmRSS"));
                }
            }
        }
        return new Result(null, String.join(" ", flags), seconds, rssKb, foreign);
    }

    /**
     * @param pending why the scenario could not run, or {@code null}
     * @param flags the worker's JVM flags
     * @param seconds start to readiness UP, per round
     * @param rssKb RSS at readiness UP, per round
     * @param foreign other processes' share of the machine's CPU during each start, %
     */
    record Result(String pending, String flags, List<Double> seconds, List<Long> rssKb, List<Double> foreign) {

        static Result pending(String why) {
            return new Result(why, "", List.of(), List.of(), List.of());
        }
    }

}
