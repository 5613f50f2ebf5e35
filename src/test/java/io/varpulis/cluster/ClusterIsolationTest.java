package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.nats.Subjects;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12, item 5: two clusters on one NATS account ({@code varpulis.cluster.name} red
 * and blue) leave each other alone: a coordinator answers only its own cluster's
 * registrations, applies only its own heartbeats, never adopts the other's groups,
 * refuses a group name the other cluster uses (their subjects and durables would be
 * shared), reports the other cluster in its {@code cluster} health details, and a worker
 * refuses the other cluster's commands.
 */
@BrokerTest
class ClusterIsolationTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void twoClustersOnOneAccountLeaveEachOthersWorkersAndGroupsAlone() throws Exception {
        List<ClusterNode> nodes = new ArrayList<>();
        try {
            var redCoordinator = CompletableFuture.supplyAsync(
                    () -> ClusterNode.coordinator(nats.url(), "jetstream", "coord-red", "--varpulis.cluster.name=red"));
            var blueCoordinator = CompletableFuture.supplyAsync(() -> ClusterNode.coordinator(nats.url(), "jetstream",
                    "coord-blue", "--varpulis.cluster.name=blue"));
            ClusterNode red = started(nodes, redCoordinator.join());
            ClusterNode blue = started(nodes, blueCoordinator.join());
            var redWorker = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats.url(), "jetstream",
                    "worker-red", false, "--varpulis.cluster.name=red"));
            var blueWorker = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats.url(), "jetstream",
                    "worker-blue", false, "--varpulis.cluster.name=blue"));
            ClusterNode redHost = started(nodes, redWorker.join());
            ClusterNode blueHost = started(nodes, blueWorker.join());
            await().atMost(WAIT).until(() -> redHost.worker().isRegistered() && blueHost.worker().isRegistered());

            assertThat(red.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("shared-name")).status())
                .isEqualTo(201);
            await().atMost(WAIT).until(() -> red.coordinator().placementOf("shared-name").size() == 3);

            assertThat(workerIds(red)).containsExactly("worker-red");
            assertThat(workerIds(blue)).containsExactly("worker-blue");
            assertThat(red.coordinator().placementOf("shared-name").values()).containsOnly("worker-red");
            assertThat(blue.get("/api/v1/cluster/pipeline-groups")
                .body()
                .findValues("name")
                .stream()
                .map(JsonNode::asText)).doesNotContain("shared-name");
            assertThat(blueHost.worker().currentHeartbeat().pipelineMetrics()).isEmpty();
            ClusterNode.Response taken = blue.post("/api/v1/cluster/pipeline-groups",
                    TestGroups.threeStages("shared-name"));
            assertThat(taken.status()).isEqualTo(409);
            assertThat(taken.body().path("error").asText()).contains("shared-name", "cluster red");
            await().atMost(WAIT).untilAsserted(() -> {
                JsonNode others = blue.get("/actuator/health")
                    .body()
                    .path("components")
                    .path("cluster")
                    .path("details")
                    .path("coordinator")
                    .path("other_clusters");
                assertThat(others.has("red")).as("blue's health details: %s", others).isTrue();
            });

            try (Connection intruder = Nats.connect(nats.url())) {
                Message reply = intruder.request(Subjects.command("worker-blue", Commands.DEPLOY),
                        ("{\"group\": {}, \"pipeline\": \"a\", \"placement_epoch\": 1, \"cluster\": \"red\", "
                                + "\"leader\": \"coord-red\", \"leader_epoch\": 99999}")
                            .getBytes(StandardCharsets.UTF_8),
                        Duration.ofSeconds(5));
                assertThat(new String(reply.getData(), StandardCharsets.UTF_8)).contains("error",
                        "from cluster red refused", "belongs to cluster blue");
            }
        }
        finally {
            nodes.forEach(ClusterNode::close);
        }
    }

    private static ClusterNode started(List<ClusterNode> nodes, ClusterNode node) {
        nodes.add(node);
        return node;
    }

    private static List<String> workerIds(ClusterNode coordinator) throws Exception {
        return coordinator.get("/api/v1/cluster/workers")
            .body()
            .findValues("worker")
            .stream()
            .map(w -> w.path("worker_id").asText())
            .toList();
    }

}
