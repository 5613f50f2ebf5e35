package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.nats.Subjects;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 25, items 4 and 6: placement never leaves two live copies of a pipeline without
 * undeploying one. A worker that runs a copy placed elsewhere (resumed from a pause, back
 * from a partition, sent a deploy by a superseded leader) has it undeployed as soon as
 * its heartbeat shows it, even before it registered again, and the undeploy carries the
 * copy's placement epoch, so that it never stops a newer copy.
 */
@BrokerTest
class StaleCopyUndeployTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void ofTwoLiveCopiesTheOlderIsUndeployedAndAnUndeployOfAnOlderEpochNeverStopsTheNewerCopy() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-stale");
                ClusterNode first = ClusterNode.worker(nats, "jetstream", "worker-first");
                Connection nc = Nats.connect(nats.url())) {
            declareOn(coordinator, first, "stale");
            long epoch = coordinator.get("/api/v1/cluster/pipeline-groups/stale")
                .body()
                .path("pipelines")
                .path("a")
                .path("epoch")
                .asLong();

            try (ClusterNode second = ClusterNode.worker(nats, "jetstream", "worker-second")) {
                await().atMost(WAIT).until(() -> second.worker().isRegistered());
                // A placement the coordinator has not heard of yet (a newer leader's
                // deploy): now two copies run.
                JsonNode deployed = command(nc, coordinator, "worker-second", Commands.DEPLOY,
                        JSON.valueToTree(new Commands.Deploy(TestGroups.threeStages("stale"), "a", epoch + 1, null)));
                assertThat(deployed.path("status").asText()).as("reply %s", deployed).isEqualTo("deployed");
                long twoCopies = System.nanoTime();

                await().atMost(WAIT).until(() -> !runs(first, "a"));
                System.out.printf("older copy undeployed %d ms after the second started (heartbeat-timeout %d ms)%n",
                        (System.nanoTime() - twoCopies) / 1_000_000, ClusterNode.HEARTBEAT_TIMEOUT.toMillis());
                assertThat(runs(second, "a")).as("the newer copy runs on").isTrue();
                await().atMost(WAIT)
                    .until(() -> "worker-second".equals(coordinator.get("/api/v1/cluster/pipeline-groups/stale")
                        .body()
                        .path("placement")
                        .path("a")
                        .asText()));

                JsonNode kept = command(nc, coordinator, "worker-second", Commands.UNDEPLOY,
                        JSON.valueToTree(new Commands.Undeploy("stale", "a", null, epoch)));
                assertThat(kept.path("status").asText()).isEqualTo("not_running");
                assertThat(runs(second, "a")).as("an undeploy of an older copy never stops a newer one").isTrue();
            }
        }
    }

    @Test
    void aWorkerTheCoordinatorDoesNotKnowHasItsStaleCopyUndeployedBeforeItRegistersAgain() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-unknown");
                ClusterNode owner = ClusterNode.worker(nats, "jetstream", "worker-known");
                Connection nc = Nats.connect(nats.url())) {
            declareOn(coordinator, owner, "ghostly");
            Subscription undeploys = nc.subscribe(Subjects.command("worker-forgotten", Commands.UNDEPLOY));
            nc.flush(Duration.ofSeconds(2));

            // A worker forgotten after dead-worker-retention, back with the copy it ran
            // before: its heartbeat.
            nc.jetStream()
                .publish(Subjects.heartbeat("worker-forgotten"),
                        JSON.writeValueAsBytes(Map.of("events_processed", 0, "pipelines_running", 1, "pipeline_metrics",
                                List.of(Map.of("pipeline_name", "a", "group", "ghostly", "epoch", 1, "events_in", 0,
                                        "events_out", 0)))));

            Message undeploy = undeploys.nextMessage(WAIT);
            assertThat(undeploy).as("undeploy sent to the unknown worker").isNotNull();
            JsonNode body = JSON.readTree(undeploy.getData());
            assertThat(body.path("group").asText()).isEqualTo("ghostly");
            assertThat(body.path("pipeline").asText()).isEqualTo("a");
            assertThat(body.path("placement_epoch").asLong()).isEqualTo(1);
            assertThat(runs(owner, "a")).isTrue();
        }
    }

    /**
     * Declares the three-stage group once the worker registered, and waits until the
     * worker runs its "a".
     */
    private static void declareOn(ClusterNode coordinator, ClusterNode worker, String group) throws Exception {
        await().atMost(WAIT).until(() -> worker.worker().isRegistered());
        assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages(group)).status())
            .isEqualTo(201);
        await().atMost(WAIT).until(() -> runs(worker, "a"));
    }

    private static boolean runs(ClusterNode worker, String pipeline) {
        return worker.worker()
            .currentHeartbeat()
            .pipelineMetrics()
            .stream()
            .anyMatch(m -> pipeline.equals(m.pipelineName()));
    }

    /** Sends a command with the current leader's fence, as the leader would. */
    private static JsonNode command(Connection nc, ClusterNode coordinator, String workerId, String command,
            JsonNode payload) throws Exception {
        JsonNode leader = coordinator.get("/api/v1/cluster/leader").body();
        ObjectNode body = (ObjectNode) payload;
        body.put(Commands.LEADER, leader.path("leader").asText());
        body.put(Commands.LEADER_EPOCH, leader.path("epoch").asLong());
        body.put(Commands.CLUSTER, leader.path("cluster").asText());
        Message reply = nc.request(Subjects.command(workerId, command), JSON.writeValueAsBytes(body),
                Duration.ofSeconds(10));
        return JSON.readTree(reply.getData());
    }

}
