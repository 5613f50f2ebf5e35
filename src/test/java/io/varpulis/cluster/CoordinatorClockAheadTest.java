package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 25, item 4: a coordinator whose wall clock runs 30 s ahead of the NATS server's
 * (libfaketime on the coordinator's JVM) applies the workers' heartbeats, keeps them
 * ready and moves no pipeline, and still discards a heartbeat replayed from before its
 * start that is older than heartbeat-timeout. Before, it found every heartbeat stale,
 * found every worker dead after heartbeat-timeout and re-placed their pipelines.
 */
@BrokerTest
class CoordinatorClockAheadTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Duration AHEAD = Duration.ofSeconds(30);

    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    // Kept when the test fails, for the coordinator's log.
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path logs;

    @Test
    void aCoordinatorClockAheadKeepsWorkersReadyMovesNothingAndStillDiscardsAReplayedStaleHeartbeat() throws Exception {
        List<ClusterNode> workers = new ArrayList<>();
        ClusterProcess coordinator = null;
        try {
            workers.add(ClusterNode.worker(nats, "jetstream", "worker-a"));
            workers.add(ClusterNode.worker(nats, "jetstream", "worker-b"));
            try (Connection nc = Nats.connect(nats.url())) {
                JetStreamManagement jsm = nc.jetStreamManagement();
                assumeThat(jsm.getStreamInfo(VarpulisJetStream.HEARTBEAT_STREAM).getTimestamp())
                    .as("nats-server 2.9 reports no time; there this host's clock counts (RELIABILITY.md)")
                    .isNotNull();
                nc.jetStream()
                    .publish(Subjects.heartbeat("worker-ghost"),
                            "{\"events_processed\":0,\"pipelines_running\":0}".getBytes(StandardCharsets.UTF_8));
            }
            // Older than heartbeat-timeout when the coordinator starts: a replay that
            // must not mark it alive.
            Thread.sleep(ClusterNode.HEARTBEAT_TIMEOUT.plusSeconds(1).toMillis());

            coordinator = ClusterProcess.startWithClockAhead("coord-ahead", logs, AHEAD,
                    List.of("--varpulis.cluster.role=coordinator", "--varpulis.cluster.coordinator-id=coord-ahead",
                            "--varpulis.nats.url=" + nats.url(), "--varpulis.nats.substrate=jetstream",
                            "--varpulis.cluster.heartbeat-interval=" + ClusterNode.HEARTBEAT_INTERVAL.toMillis() + "ms",
                            "--varpulis.cluster.heartbeat-timeout=" + ClusterNode.HEARTBEAT_TIMEOUT.toMillis() + "ms",
                            "--varpulis.cluster.leader-lease-ttl=" + ClusterNode.LEADER_LEASE_TTL.toMillis() + "ms",
                            "--varpulis.cluster.command-timeout=2s", "--varpulis.cluster.rebalance-delay=1h"));
            ClusterProcess coord = coordinator;
            await().atMost(WAIT).until(() -> readyWorkers(coord).size() == 2);
            Instant registered = Instant.parse(workers(coord).get("worker-a").path("registered_at").asText());
            assertThat(Duration.between(Instant.now(), registered)).as("faketime shifts the coordinator's clock")
                .isGreaterThan(AHEAD.minusSeconds(10));

            assertThat(coord
                .post("/api/v1/cluster/pipeline-groups", JSON.writeValueAsString(TestGroups.threeStages("skewed")))
                .status()).isEqualTo(201);
            await().atMost(WAIT).until(() -> placement(coord).size() == 3);
            Map<String, String> placed = placement(coord);

            ThrowingRunnable unchanged = () -> {
                assertThat(readyWorkers(coord)).as("heartbeats applied: no worker found dead")
                    .containsExactlyInAnyOrder("worker-a", "worker-b");
                assertThat(placement(coord)).as("no pipeline moves").isEqualTo(placed);
            };
            await().during(ClusterNode.HEARTBEAT_TIMEOUT.multipliedBy(4))
                .atMost(ClusterNode.HEARTBEAT_TIMEOUT.multipliedBy(5))
                .pollInterval(ClusterNode.HEARTBEAT_INTERVAL)
                .failFast(unchanged)
                .untilAsserted(unchanged);
            assertThat(meter(coord, "varpulis.heartbeats.applied")).isGreaterThan(10);
            assertThat(meter(coord, "varpulis.heartbeats.stale")).as("the replayed ghost heartbeat")
                .isGreaterThanOrEqualTo(1);
            assertThat(coord.output()).doesNotContain("unknown worker worker-ghost")
                .doesNotContain("missed its heartbeats");
        }
        finally {
            if (coordinator != null) {
                coordinator.close();
            }
            workers.forEach(ClusterNode::close);
        }
    }

    private static Map<String, JsonNode> workers(ClusterProcess coordinator) {
        Map<String, JsonNode> byId = new LinkedHashMap<>();
        coordinator.get("/api/v1/cluster/workers")
            .ifPresent(r -> r.body()
                .forEach(entry -> byId.put(entry.path("worker").path("worker_id").asText(), entry.path("worker"))));
        return byId;
    }

    private static List<String> readyWorkers(ClusterProcess coordinator) {
        return workers(coordinator).values()
            .stream()
            .filter(w -> "ready".equals(w.path("status").asText()))
            .map(w -> w.path("worker_id").asText())
            .toList();
    }

    private static Map<String, String> placement(ClusterProcess coordinator) {
        Map<String, String> placed = new LinkedHashMap<>();
        coordinator.get("/api/v1/cluster/pipeline-groups/skewed")
            .ifPresent(r -> r.body()
                .path("placement")
                .fields()
                .forEachRemaining(e -> placed.put(e.getKey(), e.getValue().asText())));
        return placed;
    }

    private static double meter(ClusterProcess coordinator, String name) {
        return coordinator.get("/actuator/metrics/" + name)
            .map(r -> r.body().path("measurements").path(0).path("value").asDouble())
            .orElse(0.0);
    }

}
