package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12 in the production topology (SPEC section 9): three clustered JetStream
 * servers, the control plane's key-value buckets ({@code varpulis_leader},
 * {@code varpulis_workers}, {@code varpulis_groups}) with 3 replicas. The server leading
 * the leader bucket is killed with SIGKILL: the cluster keeps one leader (never two), the
 * workers keep their ids, and a group declared afterwards (retried while the store
 * answers 503 during the election) is stored, placed and carries events.
 */
@BrokerTest
class ControlPlaneOnNatsClusterTest {

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree();

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void theControlPlaneBucketsSurviveTheirLeadingServerKilled() throws Exception {
        // A worker connected to the killed server is away for a reconnect (2 s) plus the
        // elections: give it time.
        String[] r3 = { "--varpulis.nats.jetstream.replicas=3", "--varpulis.cluster.heartbeat-timeout=8s",
                "--varpulis.cluster.worker-lease-ttl=8s", "--varpulis.cluster.command-timeout=4s" };
        List<ClusterNode> nodes = new ArrayList<>();
        try {
            var c1 = CompletableFuture
                .supplyAsync(() -> ClusterNode.coordinator(cluster.url(), "jetstream", "coord-r3-a", r3));
            var c2 = CompletableFuture
                .supplyAsync(() -> ClusterNode.coordinator(cluster.url(), "jetstream", "coord-r3-b", r3));
            List<ClusterNode> coordinators = List.of(c1.join(), c2.join());
            nodes.addAll(coordinators);
            var w1 = CompletableFuture
                .supplyAsync(() -> ClusterNode.worker(cluster.url(), "jetstream", "worker-r3-1", false, r3));
            var w2 = CompletableFuture
                .supplyAsync(() -> ClusterNode.worker(cluster.url(), "jetstream", "worker-r3-2", false, r3));
            List<ClusterNode> workers = List.of(w1.join(), w2.join());
            nodes.addAll(workers);
            await().atMost(WAIT).until(() -> workers.stream().allMatch(w -> w.worker().isRegistered()));
            try (Connection admin = Nats.connect(cluster.url(0))) {
                JetStreamManagement jsm = admin.jetStreamManagement();
                for (String bucket : List.of(ControlPlaneBuckets.LEADER, ControlPlaneBuckets.WORKER_IDS,
                        ControlPlaneBuckets.GROUPS)) {
                    assertThat(jsm.getStreamInfo("KV_" + bucket).getConfiguration().getReplicas())
                        .as("replicas of %s", bucket)
                        .isEqualTo(3);
                }
            }
            ClusterNode leader = await().atMost(WAIT).until(() -> leaderOf(coordinators), l -> l != null);
            assertThat(leader.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("before")).status())
                .isEqualTo(201);

            int victim = cluster.streamLeader("KV_" + ControlPlaneBuckets.LEADER);
            cluster.kill(victim);
            try {
                Thread.sleep(ClusterNode.LEADER_LEASE_TTL.multipliedBy(2).toMillis());
                ClusterNode now = await().atMost(WAIT).until(() -> leaderOf(coordinators), l -> l != null);
                await().atMost(WAIT).untilAsserted(() -> {
                    for (ClusterNode coordinator : coordinators) {
                        assertThat(coordinator.get("/api/v1/cluster/leader").body().path("leader").asText())
                            .isEqualTo(now.name());
                    }
                });
                assertThat(workers).allSatisfy(w -> assertThat(w.worker().holdsId()).isTrue());

                ClusterNode.Response after = await().atMost(WAIT)
                    .until(() -> now.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("after")),
                            r -> r.status() != 503);
                assertThat(after.status()).as("answer %s", after.body()).isEqualTo(201);
                ClusterNode other = coordinators.get(0) == now ? coordinators.get(1) : coordinators.get(0);
                await().atMost(WAIT).until(() -> other.coordinator().group("after").isPresent());
                await().atMost(WAIT).until(() -> now.coordinator().placementOf("after").size() == 3);
                assertThat(other
                    .post("/api/v1/cluster/pipeline-groups/after/inject",
                            Map.of("event_type", "Probe", "fields", Map.of("n", 1)))
                    .status()).isEqualTo(202);
                await().atMost(WAIT)
                    .until(() -> workers.stream().anyMatch(w -> TestGroups.numbers(w.recorded("after")).contains(1)));
            }
            finally {
                cluster.start(victim);
            }
        }
        finally {
            nodes.forEach(ClusterNode::close);
        }
    }

    private static ClusterNode leaderOf(List<ClusterNode> coordinators) {
        List<ClusterNode> leaders = coordinators.stream().filter(c -> c.coordinator().isLeader()).toList();
        assertThat(leaders).as("coordinators leading at once").hasSizeLessThanOrEqualTo(1);
        return leaders.isEmpty() ? null : leaders.get(0);
    }

}
