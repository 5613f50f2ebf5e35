package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12, leader election on NATS (SPEC section 9): of three coordinators exactly one
 * leads, by a lease in the key-value bucket {@code varpulis_leader}, and every one names
 * it at the same epoch over {@code GET /api/v1/cluster/leader}, in its {@code cluster}
 * health details and in the {@code varpulis_cluster_leader} gauge. A killed leader is
 * replaced within the lease TTL plus one renewal interval, at a higher epoch; one that
 * stops gracefully hands over at once; a lease overwritten behind the leader's back (a
 * write without its revision) makes it stop leading, and leadership returns once the
 * intruder's entry lapses.
 */
@BrokerTest
class LeaderElectionTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(30);

    /**
     * Lease TTL, one renewal interval (TTL / 3) and a generous second for a loaded
     * machine.
     */
    private static final Duration TAKEOVER = ClusterNode.LEADER_LEASE_TTL
        .plus(ClusterNode.LEADER_LEASE_TTL.dividedBy(3))
        .plusSeconds(2);

    @Test
    void exactlyOneOfThreeCoordinatorsLeadsAndEveryOneNamesItAtTheSameEpoch() throws Exception {
        List<ClusterNode> coordinators = startCoordinators("a", "b", "c");
        try {
            ClusterNode leader = awaitOneLeader(coordinators);

            for (ClusterNode coordinator : coordinators) {
                JsonNode answer = coordinator.get("/api/v1/cluster/leader").body();
                assertThat(answer.path("leader").asText()).as("leader named by %s", coordinator.name())
                    .isEqualTo(leader.name());
                assertThat(answer.path("epoch").asLong()).isEqualTo(leader.coordinator().leader().epoch()).isPositive();
                assertThat(answer.path("this_node").asText()).isEqualTo(coordinator.name());
                assertThat(answer.path("this_node_leads").asBoolean()).isEqualTo(coordinator == leader);
                assertThat(coordinator.metrics().registry().get("varpulis.cluster.leader").gauge().value())
                    .isEqualTo(coordinator == leader ? 1.0 : 0.0);
                @SuppressWarnings("unchecked")
                Map<String, Object> details = (Map<String, Object>) coordinator.clusterHealth()
                    .getDetails()
                    .get("coordinator");
                assertThat(details).containsEntry("leader", leader.name())
                    .containsEntry("this_node_leads", coordinator == leader);
            }
            JsonNode health = leader.get("/actuator/health/readiness").body();
            assertThat(health.path("components")
                .path("cluster")
                .path("details")
                .path("coordinator")
                .path("leader")
                .asText()).isEqualTo(leader.name());
        }
        finally {
            coordinators.forEach(ClusterNode::close);
        }
    }

    @Test
    void aKilledLeaderIsReplacedWithinTheLeaseTtlAtAHigherEpoch() throws Exception {
        List<ClusterNode> coordinators = startCoordinators("a", "b", "c");
        try {
            ClusterNode leader = awaitOneLeader(coordinators);
            long epoch = leader.coordinator().leader().epoch();
            List<ClusterNode> survivors = coordinators.stream().filter(c -> c != leader).toList();

            long killed = System.nanoTime();
            leader.kill();
            ClusterNode next = await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> leaderAmong(survivors), n -> n != null);
            Duration takeover = Duration.ofNanos(System.nanoTime() - killed);

            assertThat(takeover).as("kill to new leader").isLessThanOrEqualTo(TAKEOVER);
            assertThat(next.coordinator().leader().epoch()).isGreaterThan(epoch);
            await().atMost(WAIT).untilAsserted(() -> {
                for (ClusterNode survivor : survivors) {
                    assertThat(survivor.get("/api/v1/cluster/leader").body().path("leader").asText())
                        .isEqualTo(next.name());
                }
            });
        }
        finally {
            coordinators.forEach(ClusterNode::close);
        }
    }

    @Test
    void aLeaderThatStopsGracefullyHandsOverAtOnce() throws Exception {
        List<ClusterNode> coordinators = startCoordinators("a", "b");
        try {
            ClusterNode leader = awaitOneLeader(coordinators);
            ClusterNode other = coordinators.get(0) == leader ? coordinators.get(1) : coordinators.get(0);

            long stopped = System.nanoTime();
            leader.close();
            await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> other.coordinator().isLeader());

            assertThat(Duration.ofNanos(System.nanoTime() - stopped))
                .as("the lease was released, not left to " + "expire")
                .isLessThan(ClusterNode.LEADER_LEASE_TTL.plusSeconds(1));
        }
        finally {
            coordinators.forEach(ClusterNode::close);
        }
    }

    @Test
    void aLeaseOverwrittenWithoutTheLeadersRevisionEndsItsLeadershipUntilTheIntruderLapses() throws Exception {
        List<ClusterNode> coordinators = startCoordinators("a", "b");
        try (Connection intruder = Nats.connect(nats.url())) {
            ClusterNode leader = awaitOneLeader(coordinators);
            long epoch = leader.coordinator().leader().epoch();
            KeyValue bucket = intruder.keyValue(ControlPlaneBuckets.LEADER);

            bucket.put(Commands.DEFAULT_CLUSTER,
                    "{\"leader\": \"intruder\", \"epoch\": 1}".getBytes(StandardCharsets.UTF_8));

            await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> coordinators.stream().noneMatch(c -> c.coordinator().isLeader()));
            ClusterNode next = await().atMost(WAIT).until(() -> leaderAmong(coordinators), n -> n != null);
            assertThat(next.coordinator().leader().epoch()).as("a new lease, not the old one resumed")
                .isGreaterThan(epoch);
        }
        finally {
            coordinators.forEach(ClusterNode::close);
        }
    }

    private List<ClusterNode> startCoordinators(String... ids) {
        List<CompletableFuture<ClusterNode>> starting = new ArrayList<>();
        for (String id : ids) {
            starting
                .add(CompletableFuture.supplyAsync(() -> ClusterNode.coordinator(nats, "jetstream", "coord-" + id)));
        }
        return starting.stream().map(CompletableFuture::join).collect(Collectors.toList());
    }

    private static ClusterNode awaitOneLeader(List<ClusterNode> coordinators) {
        ClusterNode leader = await().atMost(WAIT).until(() -> leaderAmong(coordinators), n -> n != null);
        assertThat(coordinators.stream()
            .filter(c -> c.coordinator().isLeader())
            .map(ClusterNode::name)
            .collect(Collectors.toSet())).isEqualTo(Set.of(leader.name()));
        await().atMost(WAIT)
            .until(() -> coordinators.stream().allMatch(c -> leader.name().equals(c.coordinator().leader().leader())));
        return leader;
    }

    private static ClusterNode leaderAmong(List<ClusterNode> coordinators) {
        List<ClusterNode> leaders = coordinators.stream().filter(c -> c.coordinator().isLeader()).toList();
        assertThat(leaders).as("coordinators that lead at once").hasSizeLessThanOrEqualTo(1);
        return leaders.isEmpty() ? null : leaders.get(0);
    }

}
