package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12, item 3 (SPEC section 9): a worker id is held by one live process, through its
 * lease in {@code varpulis_workers}. A second process started with the id of a live
 * worker is refused: it subscribes to nothing, runs nothing, never registers, and its
 * readiness is DOWN with the holder in its {@code cluster} health details. When the
 * holder dies, the id is free once its lease lapses, and the waiting process takes over.
 */
@BrokerTest
class WorkerIdentityTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aSecondProcessWithTheIdOfALiveWorkerIsRefusedRunsNothingAndTakesOverOnlyWhenTheHolderIsGone()
            throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-identity")) {
            ClusterNode holder = ClusterNode.worker(nats, "jetstream", "worker-dup");
            ClusterNode second = null;
            try {
                await().atMost(WAIT).until(() -> holder.worker().isRegistered());
                assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("dup")).status())
                    .isEqualTo(201);
                await().atMost(WAIT).until(() -> runs(holder, "dup"));
                Instant registered = coordinator.coordinator().worker("worker-dup").orElseThrow().registeredAt();

                second = ClusterNode.worker(nats.url(), "jetstream", "worker-dup", true);
                ClusterNode duplicate = second;
                await().atMost(WAIT).untilAsserted(() -> {
                    ClusterNode.Response readiness = duplicate.get("/actuator/health/readiness");
                    assertThat(readiness.status()).isEqualTo(503);
                    JsonNode details = readiness.body()
                        .path("components")
                        .path("cluster")
                        .path("details")
                        .path("worker");
                    assertThat(details.path("reason").asText()).contains("worker id worker-dup is held by process",
                            "runs nothing");
                    assertThat(details.path("holds_id").asBoolean()).isFalse();
                });
                assertThat(coordinator
                    .post("/api/v1/cluster/pipeline-groups/dup/inject",
                            Map.of("event_type", "Probe", "fields", Map.of("n", 1)))
                    .status()).isEqualTo(202);
                await().atMost(WAIT).until(() -> TestGroups.numbers(holder.recorded("dup")).contains(1));
                await().during(ClusterNode.HEARTBEAT_TIMEOUT)
                    .atMost(ClusterNode.HEARTBEAT_TIMEOUT.plusSeconds(2))
                    .untilAsserted(
                            () -> assertThat(duplicate.recorded("dup")).as("the duplicate applied nothing").isEmpty());
                assertThat(duplicate.worker().currentHeartbeat().pipelineMetrics()).isEmpty();
                assertThat(duplicate.worker().isRegistered()).isFalse();
                assertThat(coordinator.coordinator().worker("worker-dup").orElseThrow().registeredAt())
                    .as("the coordinator never heard of the duplicate")
                    .isEqualTo(registered);

                long killed = System.nanoTime();
                holder.kill();
                await().atMost(WAIT).until(() -> duplicate.worker().holdsId());
                assertThat(Duration.ofNanos(System.nanoTime() - killed)).as("the holder's lease lapsed")
                    .isLessThanOrEqualTo(
                            ClusterNode.WORKER_LEASE_TTL.plus(ClusterNode.HEARTBEAT_INTERVAL).plusSeconds(2));
                await().atMost(WAIT).until(() -> runs(duplicate, "dup"));
                assertThat(duplicate.get("/actuator/health/readiness").status()).isEqualTo(200);
                assertThat(coordinator
                    .post("/api/v1/cluster/pipeline-groups/dup/inject",
                            Map.of("event_type", "Probe", "fields", Map.of("n", 2)))
                    .status()).isEqualTo(202);
                await().atMost(WAIT).until(() -> TestGroups.numbers(duplicate.recorded("dup")).contains(2));
            }
            finally {
                holder.close();
                if (second != null) {
                    second.close();
                }
            }
        }
    }

    private static boolean runs(ClusterNode worker, String group) {
        return worker.worker()
            .currentHeartbeat()
            .pipelineMetrics()
            .stream()
            .filter(m -> group.equals(m.group()))
            .map(WorkerHeartbeat.PipelineMetric::pipelineName)
            .toList()
            .containsAll(Set.of("a", "b", "c"));
    }

}
