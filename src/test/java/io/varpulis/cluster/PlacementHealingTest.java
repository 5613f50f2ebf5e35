package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12, item 6, and issue 15, items 4, 7 and 10, over the operator API: placement
 * that heals. A deploy that fails is answered 201 with the pipeline unplaced and the
 * error, and is retried until it succeeds; pipelines move onto a worker that joins later,
 * by load, and stop moving once the load is even; a dead worker leaves the list after
 * dead-worker-retention and is counted meanwhile; {@code capacity.pipelines_running}
 * follows the heartbeats; a restarted coordinator says until when it adopts from
 * heartbeats.
 */
@BrokerTest
class PlacementHealingTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aDeployToAWorkerThatExitedIsAnswered201UnplacedWithTheErrorAndPlacedOnceAWorkerCanRunIt() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-heal")) {
            ClusterNode gone = ClusterNode.worker(nats, "jetstream", "worker-gone");
            ClusterNode fresh = null;
            try {
                await().atMost(WAIT).until(() -> gone.worker().isRegistered());
                gone.kill();

                ClusterNode.Response created = coordinator.post("/api/v1/cluster/pipeline-groups",
                        TestGroups.threeStages("healing"));

                assertThat(created.status()).isEqualTo(201);
                assertThat(created.body().path("placement").size()).as("nothing runs: %s", created.body()).isZero();
                JsonNode a = created.body().path("pipelines").path("a");
                assertThat(a.path("state").asText()).isEqualTo("unplaced");
                assertThat(a.path("last_error").asText()).contains("deploy on worker-gone failed");
                assertThat(a.path("note").asText()).contains("places it again");

                fresh = ClusterNode.worker(nats, "jetstream", "worker-fresh");
                await().atMost(WAIT).untilAsserted(() -> {
                    JsonNode group = coordinator.get("/api/v1/cluster/pipeline-groups/healing").body();
                    assertThat(group.path("placement").path("a").asText()).isEqualTo("worker-fresh");
                    assertThat(group.path("pipelines").path("a").path("state").asText()).isEqualTo("running");
                    assertThat(group.path("pipelines").path("a").has("last_error")).isFalse();
                });
                assertThat(coordinator
                    .post("/api/v1/cluster/pipeline-groups/healing/inject",
                            Map.of("event_type", "Probe", "fields", Map.of("n", 1)))
                    .status()).isEqualTo(202);
                ClusterNode host = fresh;
                await().atMost(WAIT).until(() -> TestGroups.numbers(host.recorded("healing")).contains(1));
            }
            finally {
                gone.close();
                if (fresh != null) {
                    fresh.close();
                }
            }
        }
    }

    @Test
    void pipelinesMoveOntoAWorkerThatJoinsLaterUntilTheLoadIsEvenAndThenStayPut() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats.url(), "jetstream", "coord-rebalance",
                "--varpulis.cluster.rebalance-delay=1s");
                ClusterNode first = ClusterNode.worker(nats, "jetstream", "worker-1")) {
            await().atMost(WAIT).until(() -> first.worker().isRegistered());
            for (String group : List.of("left", "right")) {
                assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages(group)).status())
                    .isEqualTo(201);
            }
            await().atMost(WAIT).until(() -> first.worker().currentHeartbeat().pipelinesRunning() == 6);

            try (ClusterNode second = ClusterNode.worker(nats, "jetstream", "worker-2")) {
                await().atMost(WAIT)
                    .until(() -> first.worker().currentHeartbeat().pipelinesRunning() == 3
                            && second.worker().currentHeartbeat().pipelinesRunning() == 3);
                Map<String, String> settled = placement(coordinator);
                assertThat(settled).hasSize(6);

                ThrowingRunnable unmoved = () -> assertThat(placement(coordinator)).as("no move once 3 and 3")
                    .isEqualTo(settled);
                await().during(ClusterNode.HEARTBEAT_INTERVAL.multipliedBy(10))
                    .atMost(ClusterNode.HEARTBEAT_INTERVAL.multipliedBy(14))
                    .pollInterval(ClusterNode.HEARTBEAT_INTERVAL)
                    .failFast(unmoved)
                    .untilAsserted(unmoved);
                for (int n : IntStream.rangeClosed(1, 5).toArray()) {
                    assertThat(coordinator
                        .post("/api/v1/cluster/pipeline-groups/left/inject",
                                Map.of("event_type", "Probe", "fields", Map.of("n", n)))
                        .status()).isEqualTo(202);
                }
                ClusterNode last = settled.get("left/c").equals("worker-1") ? first : second;
                await().atMost(WAIT)
                    .until(() -> TestGroups.numbers(last.recorded("left")).containsAll(List.of(1, 2, 3, 4, 5)));
            }
        }
    }

    @Test
    void aDeadWorkerIsCountedThenLeavesTheListAfterTheRetentionAndCapacityFollowsHeartbeats() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats.url(), "jetstream", "coord-retention",
                "--varpulis.cluster.dead-worker-retention=4s")) {
            ClusterNode dying = ClusterNode.worker(nats, "jetstream", "worker-dying");
            try {
                await().atMost(WAIT).until(() -> dying.worker().isRegistered());
                assertThat(
                        coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("counted")).status())
                    .isEqualTo(201);
                await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(
                            worker(coordinator, "worker-dying").path("capacity").path("pipelines_running").asInt())
                        .isEqualTo(3));

                dying.kill();
                await().atMost(WAIT)
                    .until(() -> worker(coordinator, "worker-dying").path("status").asText().equals("unhealthy"));
                assertThat(gauge(coordinator, "unhealthy")).isEqualTo(1.0);
                assertThat(gauge(coordinator, "ready")).isZero();

                await().atMost(WAIT).until(() -> worker(coordinator, "worker-dying").isMissingNode());
                assertThat(gauge(coordinator, "unhealthy")).isZero();
            }
            finally {
                dying.close();
            }
        }
    }

    @Test
    void aRestartedCoordinatorSaysUntilWhenItAdoptsFromHeartbeats() throws Exception {
        String[] slow = { "--varpulis.cluster.heartbeat-timeout=8s" };
        try (ClusterNode worker = ClusterNode.worker(nats, "jetstream", "worker-adopt")) {
            try (ClusterNode coordinator = ClusterNode.coordinator(nats.url(), "jetstream", "coord-adopt", slow)) {
                await().atMost(WAIT).until(() -> worker.worker().isRegistered());
                assertThat(
                        coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("adopted")).status())
                    .isEqualTo(201);
                await().atMost(WAIT).until(() -> worker.worker().currentHeartbeat().pipelinesRunning() == 3);
            }
            worker.worker().stop();

            try (ClusterNode restarted = ClusterNode.coordinator(nats.url(), "jetstream", "coord-adopt", slow)) {
                JsonNode group = restarted.get("/api/v1/cluster/pipeline-groups/adopted").body();
                Instant until = Instant.parse(group.path("adopting_until").asText());

                assertThat(until).isAfter(Instant.now());
                assertThat(group.path("pipelines").path("a").path("state").asText()).isEqualTo("unplaced");
                assertThat(group.path("pipelines").path("a").path("note").asText())
                    .startsWith("adopting from heartbeats until " + until);
                assertThat(restarted.get("/actuator/health")
                    .body()
                    .path("components")
                    .path("cluster")
                    .path("details")
                    .path("coordinator")
                    .path("placement")
                    .asText()).isEqualTo("adopting from heartbeats until " + until);
            }
        }
    }

    private static Map<String, String> placement(ClusterNode coordinator) {
        Map<String, String> all = new HashMap<>();
        for (String group : List.of("left", "right")) {
            coordinator.coordinator().placementOf(group).forEach((p, w) -> all.put(group + "/" + p, w));
        }
        return all;
    }

    private static JsonNode worker(ClusterNode coordinator, String workerId) throws Exception {
        for (JsonNode entry : coordinator.get("/api/v1/cluster/workers").body()) {
            if (entry.path("worker").path("worker_id").asText().equals(workerId)) {
                return entry.path("worker");
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    private static double gauge(ClusterNode coordinator, String status) {
        return coordinator.metrics().registry().get("varpulis.cluster.workers").tag("status", status).gauge().value();
    }

}
