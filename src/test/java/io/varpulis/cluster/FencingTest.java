package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.nats.Subjects;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12, item 2 (SPEC section 9): every command carries the leader's epoch and a
 * worker refuses one older than the newest it has seen, naming both; deploy, undeploy and
 * drain without an epoch are refused. A pipeline's placement has an epoch too, larger for
 * every later placement: a zombie worker (thought dead, still running) keeps its old
 * epoch while its successor runs the pipeline with a newer one, which is what fences the
 * pipeline's state.
 */
@BrokerTest
class FencingTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aWorkerRefusesTheCommandsOfALeaderOlderThanTheNewestItHasSeen() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-fence");
                ClusterNode worker = ClusterNode.worker(nats, "jetstream", "worker-fenced");
                Connection other = Nats.connect(nats.url())) {
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("fenced")).status())
                .isEqualTo(201);
            await().atMost(WAIT).until(() -> worker.worker().currentHeartbeat().pipelinesRunning() == 3);
            long epoch = coordinator.coordinator().leader().epoch();
            assertThat(worker.worker().newestLeaderEpoch()).isEqualTo(epoch);
            long newer = epoch + 1000;

            String accepted = request(other, Commands.UNDEPLOY, "{\"group\": \"fenced\", \"pipeline\": \"zzz\", "
                    + "\"leader\": \"coord-newer\", \"leader_epoch\": " + newer + "}");
            String refused = request(other, Commands.UNDEPLOY, "{\"group\": \"fenced\", \"pipeline\": \"c\", "
                    + "\"leader\": \"coord-fence\", \"leader_epoch\": " + epoch + "}");
            String unfenced = request(other, Commands.DRAIN, "{}");

            assertThat(accepted).contains("not_running");
            assertThat(refused).contains("\"error\"", "coord-fence", "leader epoch " + epoch,
                    "has seen leader epoch " + newer);
            assertThat(unfenced).contains("\"error\"", "carries no leader_epoch");
            assertThat(worker.worker().currentHeartbeat().pipelinesRunning()).as("nothing was stopped").isEqualTo(3);
        }
    }

    @Test
    void aZombieKeepsItsOldPlacementEpochWhileItsSuccessorRunsThePipelinesWithNewerOnes() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-zombie");
                // Heartbeats every 20 s: the coordinator (2 s timeout) thinks it dead
                // while it keeps running.
                ClusterNode zombie = ClusterNode.worker(nats.url(), "jetstream", "worker-zombie", false,
                        "--varpulis.cluster.heartbeat-interval=20s", "--varpulis.cluster.heartbeat-timeout=60s",
                        "--varpulis.cluster.worker-lease-ttl=60s")) {
            await().atMost(WAIT).until(() -> zombie.worker().isRegistered());
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("undead")).status())
                .isEqualTo(201);
            await().atMost(WAIT).until(() -> zombie.worker().currentHeartbeat().pipelinesRunning() == 3);
            Map<String, Long> old = epochs(zombie);
            await().atMost(WAIT)
                .until(() -> coordinator.coordinator().worker("worker-zombie").map(w -> !w.isReady()).orElse(false));

            try (ClusterNode successor = ClusterNode.worker(nats, "jetstream", "worker-successor")) {
                await().atMost(WAIT).until(() -> successor.worker().currentHeartbeat().pipelinesRunning() == 3);
                Map<String, Long> next = epochs(successor);

                assertThat(epochs(zombie)).as("the zombie still runs, with its old epochs").isEqualTo(old);
                for (String pipeline : old.keySet()) {
                    assertThat(next.get(pipeline)).as("placement epoch of %s", pipeline)
                        .isGreaterThan(old.get(pipeline));
                }
                assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/undead")
                    .body()
                    .path("pipelines")
                    .path("c")
                    .path("epoch")
                    .asLong()).isEqualTo(next.get("c"));
            }
        }
    }

    private static Map<String, Long> epochs(ClusterNode worker) {
        return worker.context()
            .getBean(PipelineHost.class)
            .status()
            .stream()
            .collect(Collectors.toMap(PipelineHost.PipelineStatus::pipeline, PipelineHost.PipelineStatus::epoch));
    }

    private static String request(Connection connection, String command, String body) throws Exception {
        Message reply = connection.request(Subjects.command("worker-fenced", command),
                body.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
        return new String(reply.getData(), StandardCharsets.UTF_8);
    }

}
