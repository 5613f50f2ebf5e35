package io.varpulis.cluster;

import io.varpulis.cluster.coordinator.WorkerRecord;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12, item 4: every coordinator sees every group at once, because the group bucket
 * is the truth and each one watches it. A group declared on the follower is placed by the
 * leader and shown by both; declaring the same name on the other coordinator is a 409; a
 * delete on either is a delete everywhere, its pipelines stop, and no coordinator brings
 * it back.
 */
@BrokerTest
class SharedGroupsTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static ClusterNode first;

    private static ClusterNode second;

    private static ClusterNode worker1;

    private static ClusterNode worker2;

    @BeforeAll
    static void startCluster() {
        var a = CompletableFuture.supplyAsync(() -> ClusterNode.coordinator(nats, "jetstream", "coord-share-a"));
        var b = CompletableFuture.supplyAsync(() -> ClusterNode.coordinator(nats, "jetstream", "coord-share-b"));
        var w1 = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats, "jetstream", "worker-1"));
        var w2 = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats, "jetstream", "worker-2"));
        first = a.join();
        second = b.join();
        worker1 = w1.join();
        worker2 = w2.join();
        await().atMost(WAIT).until(() -> first.coordinator().isLeader() || second.coordinator().isLeader());
        await().atMost(WAIT)
            .until(() -> List.of(first, second)
                .stream()
                .allMatch(c -> c.coordinator().workers().stream().filter(WorkerRecord::isReady).count() == 2));
    }

    @AfterAll
    static void stopCluster() {
        for (ClusterNode node : new ClusterNode[] { first, second, worker1, worker2 }) {
            if (node != null) {
                node.close();
            }
        }
    }

    /**
     * A follower restarted after the workers registered learns them from their heartbeats
     * (it asks them to register again, which every coordinator hears), so its workers
     * list, placements and meters are the leader's.
     */
    @Test
    void aRestartedFollowerKnowsTheWorkersThatRegisteredBeforeIt() throws Exception {
        ClusterNode follower = follower();
        boolean wasFirst = follower == first;
        String id = follower.name();
        follower.close();
        ClusterNode restarted = ClusterNode.coordinator(nats, "jetstream", id);
        if (wasFirst) {
            first = restarted;
        }
        else {
            second = restarted;
        }
        await().atMost(WAIT)
            .until(() -> restarted.coordinator().workers().stream().filter(WorkerRecord::isReady).count() == 2);
        assertThat(restarted.get("/api/v1/cluster/workers").body().size()).isEqualTo(2);
    }

    @Test
    void aGroupDeclaredOnTheFollowerIsPlacedByTheLeaderAndShownByBoth() throws Exception {
        ClusterNode follower = follower();

        ClusterNode.Response created = follower.post("/api/v1/cluster/pipeline-groups",
                TestGroups.threeStages("declared-on-follower"));

        assertThat(created.status()).isEqualTo(201);
        assertThat(leader().get("/api/v1/cluster/pipeline-groups/declared-on-follower").status())
            .as("the leader knows it at once")
            .isEqualTo(200);
        await().atMost(WAIT).untilAsserted(() -> {
            for (ClusterNode coordinator : List.of(first, second)) {
                assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/declared-on-follower")
                    .body()
                    .path("placement")
                    .size()).as("placement shown by %s", coordinator.name()).isEqualTo(3);
            }
        });
        assertThat(follower
            .post("/api/v1/cluster/pipeline-groups/declared-on-follower/inject",
                    Map.of("event_type", "Probe", "fields", Map.of("n", 1)))
            .status()).isEqualTo(202);
        await().atMost(WAIT)
            .until(() -> TestGroups.numbers(worker1.recorded("declared-on-follower")).contains(1)
                    || TestGroups.numbers(worker2.recorded("declared-on-follower")).contains(1));
    }

    @Test
    void theSameNameDeclaredOnTheOtherCoordinatorIsAConflict() throws Exception {
        assertThat(first.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("once")).status())
            .isEqualTo(201);

        ClusterNode.Response again = second.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("once"));

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.body().path("error").asText()).contains("once", "already exists");
    }

    @Test
    void aDeleteOnOneCoordinatorIsADeleteEverywhereAndIsNeverUndone() throws Exception {
        assertThat(leader().post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("short-lived")).status())
            .isEqualTo(201);
        await().atMost(WAIT).until(() -> running("short-lived").size() == 3);

        assertThat(follower().delete("/api/v1/cluster/pipeline-groups/short-lived").status()).isEqualTo(204);

        for (ClusterNode coordinator : List.of(first, second)) {
            await().atMost(WAIT)
                .until(() -> coordinator.get("/api/v1/cluster/pipeline-groups/short-lived").status() == 404);
        }
        await().atMost(WAIT).until(() -> running("short-lived").isEmpty());
        // Several heartbeats and ticks later, nobody re-declared it.
        ThrowingRunnable gone = () -> {
            for (ClusterNode coordinator : List.of(first, second)) {
                assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/short-lived").status()).isEqualTo(404);
            }
            assertThat(running("short-lived")).isEmpty();
        };
        await().during(ClusterNode.HEARTBEAT_TIMEOUT.multipliedBy(2))
            .atMost(ClusterNode.HEARTBEAT_TIMEOUT.multipliedBy(3))
            .pollInterval(ClusterNode.HEARTBEAT_INTERVAL)
            .failFast(gone)
            .untilAsserted(gone);
    }

    private static ClusterNode leader() {
        return first.coordinator().isLeader() ? first : second;
    }

    private static ClusterNode follower() {
        return leader() == first ? second : first;
    }

    /** The pipelines of the group that the workers themselves say they run. */
    private static Set<String> running(String group) {
        Set<String> running = new HashSet<>();
        for (ClusterNode worker : List.of(worker1, worker2)) {
            worker.worker()
                .currentHeartbeat()
                .pipelineMetrics()
                .stream()
                .filter(m -> group.equals(m.group()))
                .forEach(m -> running.add(m.pipelineName()));
        }
        return running;
    }

}
