package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.varpulis.cluster.coordinator.GroupStore;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Removing a pipeline group whose worker is down: the coordinator cannot confirm the
 * undeploy, but the group is gone all the same, so the API says so (204) and the purge
 * still deletes its durable consumers; the worker undeploys what it still runs when it
 * heartbeats again.
 */
@BrokerTest
class GroupRemovalTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    /**
     * The undeploy of a removed group that never reached its worker (here: the group
     * removed from the group bucket while no coordinator ran, as {@code nats kv del} or a
     * coordinator that died right after its delete would leave it): the leader finds the
     * worker reporting a pipeline of a group the cluster no longer has and undeploys it
     * there, instead of leaving it to run, and consume, for as long as the worker lives.
     */
    @Test
    void aWorkerStillRunningARemovedGroupIsToldToUndeployIt() throws Exception {
        ClusterNode worker = ClusterNode.worker(nats, "jetstream", "worker-zombie");
        try {
            declareThenKillTheCoordinator(worker, "jetstream", "coord-zombie", "zombie");
            try (Connection operator = Nats.connect(nats.url())) {
                operator.keyValue(ControlPlaneBuckets.GROUPS)
                    .delete(GroupStore.key(Commands.DEFAULT_CLUSTER, "zombie"));
            }
            assertThat(worker.worker().currentHeartbeat().pipelinesRunning()).as("still running, unknowing")
                .isEqualTo(3);

            try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-zombie-2")) {
                await().atMost(Duration.ofSeconds(30))
                    .until(() -> worker.worker().currentHeartbeat().pipelinesRunning() == 0);
                assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/zombie").status()).isEqualTo(404);
            }
        }
        finally {
            worker.close();
        }
    }

    /**
     * On core the group store is the coordinator's memory: a restarted coordinator has
     * forgotten the groups declared over the API, which is no reason to stop what the
     * workers run. Six heartbeat intervals after it started, the worker still runs all
     * three pipelines.
     */
    @Test
    void onCoreARestartedCoordinatorLeavesThePipelinesItForgotRunning() throws Exception {
        ClusterNode worker = ClusterNode.worker(nats, "core", "worker-core-kept");
        try {
            declareThenKillTheCoordinator(worker, "core", "coord-core-kept", "kept");
            try (ClusterNode coordinator = ClusterNode.coordinator(nats, "core", "coord-core-kept-2")) {
                await().atMost(Duration.ofSeconds(30))
                    .until(() -> coordinator.coordinator()
                        .worker("worker-core-kept")
                        .map(w -> w.heartbeat() != null)
                        .orElse(false));
                ThrowingRunnable kept = () -> assertThat(worker.worker().currentHeartbeat().pipelinesRunning())
                    .isEqualTo(3);
                await().during(ClusterNode.HEARTBEAT_INTERVAL.multipliedBy(6))
                    .atMost(ClusterNode.HEARTBEAT_INTERVAL.multipliedBy(10))
                    .failFast(kept)
                    .untilAsserted(kept);
            }
        }
        finally {
            worker.close();
        }
    }

    @Test
    void groupWhoseWorkerIsDownIsRemovedAndPurgedWith204() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-removal")) {
            ClusterNode worker = ClusterNode.worker(nats, "jetstream", "worker-gone");
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> worker.worker().isRegistered());
                assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("gone")).status())
                    .isEqualTo(201);
                await().atMost(Duration.ofSeconds(30))
                    .until(() -> coordinator.coordinator()
                        .worker("worker-gone")
                        .map(w -> w.heartbeat() != null && w.heartbeat().pipelinesRunning() == 3)
                        .orElse(false));
                JetStreamManagement jsm = coordinator.context().getBean(Connection.class).jetStreamManagement();
                assertThat(jsm.getConsumerNames(VarpulisJetStream.ROUTING_STREAM))
                    .anyMatch(name -> name.contains("_gone_"));
                worker.kill();

                ClusterNode.Response removed = coordinator.delete("/api/v1/cluster/pipeline-groups/gone?purge=true");

                assertThat(removed.status()).as("answer %s", removed.body()).isEqualTo(204);
                assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/gone").status()).isEqualTo(404);
                assertThat(jsm.getConsumerNames(VarpulisJetStream.ROUTING_STREAM))
                    .noneMatch(name -> name.contains("_gone_"));
            }
            finally {
                worker.close();
            }
        }
    }

    /**
     * A coordinator that places a three-stage group on the worker, then is killed: the
     * worker runs on alone.
     */
    private static void declareThenKillTheCoordinator(ClusterNode worker, String substrate, String coordinatorId,
            String group) throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, substrate, coordinatorId)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> worker.worker().isRegistered());
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages(group)).status())
                .isEqualTo(201);
            await().atMost(Duration.ofSeconds(30))
                .until(() -> worker.worker().currentHeartbeat().pipelinesRunning() == 3);
            coordinator.kill();
        }
    }

}
