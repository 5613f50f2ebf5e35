package io.varpulis.cluster;

import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 3 and SPEC section 8, behaviours 1 and 2, through the cluster: a worker is
 * stopped (its context closed) while events are routed to its pipelines, then started
 * again with the same worker id. On JetStream it applies every one of them, once, in
 * order; on core they are gone. The core test is kept because it documents why JetStream
 * exists.
 */
@BrokerTest
class WorkerRestartTest {

    @RegisterExtension
    static final NatsServerExtension jetStream = NatsServerExtension.jetStream();

    @RegisterExtension
    static final NatsServerExtension coreOnly = NatsServerExtension.coreOnly();

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static final String GROUP = "restart";

    /** Probes injected while the worker is down. */
    private static final List<Integer> WHILE_DOWN = IntStream.rangeClosed(2, 11).boxed().toList();

    @Test
    void onJetStreamAWorkerStoppedWhileEventsAreRoutedToItAppliesAllOfThemAfterItRestarts() throws Exception {
        List<Integer> afterRestart = restartWhileEventsAreRouted(jetStream, "jetstream");

        assertThat(afterRestart)
            .as("every probe routed while the worker was down, then the one after, each once; "
                    + "probe 1 was acked before the stop and not redelivered")
            .containsExactlyInAnyOrder(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    }

    @Test
    void onCoreTheEventsRoutedWhileTheWorkerIsDownAreLost() throws Exception {
        List<Integer> afterRestart = restartWhileEventsAreRouted(coreOnly, "core");

        assertThat(afterRestart)
            .as("core keeps nothing for a subscriber that is gone: only the probe sent after the "
                    + "restart arrives; use VARPULIS_NATS_SUBSTRATE=jetstream")
            .containsExactly(12);
    }

    /**
     * A coordinator and worker {@code worker-r} run the three-stage group; probe 1 goes
     * through, the worker's context is closed, probes 2 to 11 are injected, a worker with
     * the same id starts, probe 12 is injected once its pipelines run again.
     * @return the probes the restarted worker's last pipeline applied, once probe 12 (and
     * on JetStream, probes 2 to 11) arrived
     */
    private static List<Integer> restartWhileEventsAreRouted(NatsServerExtension nats, String substrate)
            throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, substrate, "coord-restart")) {
            ClusterNode worker = ClusterNode.worker(nats, substrate, "worker-r");
            try {
                assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages(GROUP)).status())
                    .isEqualTo(201);
                awaitRunning(coordinator, Instant.EPOCH);
                inject(coordinator, 1);
                ClusterNode first = worker;
                await().atMost(WAIT).until(() -> TestGroups.numbers(first.recorded(GROUP)).equals(List.of(1)));

                worker.close();
                for (int n : WHILE_DOWN) {
                    inject(coordinator, n);
                }
                Instant restartedAt = Instant.now();
                worker = ClusterNode.worker(nats, substrate, "worker-r");

                awaitRunning(coordinator, restartedAt);
                inject(coordinator, 12);
                ClusterNode restarted = worker;
                await().atMost(WAIT).until(() -> TestGroups.numbers(restarted.recorded(GROUP)).contains(12));
                if (substrate.equals("jetstream")) {
                    await().atMost(WAIT)
                        .until(() -> TestGroups.numbers(restarted.recorded(GROUP)).containsAll(WHILE_DOWN));
                }
                assertThat(coordinator.coordinator().placementOf(GROUP))
                    .isEqualTo(Map.of("a", "worker-r", "b", "worker-r", "c", "worker-r"));
                return TestGroups.numbers(restarted.recorded(GROUP));
            }
            finally {
                worker.close();
            }
        }
    }

    private static void inject(ClusterNode coordinator, int n) throws Exception {
        assertThat(coordinator
            .post("/api/v1/cluster/pipeline-groups/" + GROUP + "/inject",
                    Map.of("event_type", "Probe", "fields", Map.of("n", n)))
            .status()).isEqualTo(202);
    }

    /**
     * Waits until the worker, registered after {@code since}, reports the three pipelines
     * running in a heartbeat sent after that registration (the record keeps the previous
     * instance's last heartbeat until then).
     */
    private static void awaitRunning(ClusterNode coordinator, Instant since) {
        await().atMost(WAIT).until(() -> coordinator.coordinator().worker("worker-r").map(w -> {
            Set<String> running = new HashSet<>();
            if (w.isReady() && w.registeredAt().isAfter(since) && w.heartbeat() != null
                    && w.lastHeartbeat().isAfter(w.registeredAt())) {
                w.heartbeat()
                    .pipelineMetrics()
                    .stream()
                    .filter(m -> GROUP.equals(m.group()))
                    .forEach(m -> running.add(m.pipelineName()));
            }
            return running.equals(Set.of("a", "b", "c"));
        }).orElse(false));
    }

}
