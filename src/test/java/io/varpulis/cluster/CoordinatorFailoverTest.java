package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.cluster.coordinator.ClusterQueries;
import io.varpulis.cluster.coordinator.WorkerRecord;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 3 on JetStream, liveness: a coordinator restarted with the same id while its
 * workers heartbeat finds them again (its durable {@code hb_{id}} kept their heartbeats;
 * it asks the ones it no longer knows to register) and discards the stale heartbeats of a
 * worker that died meanwhile; a worker killed under a running coordinator is marked
 * unhealthy within heartbeat-timeout plus one interval and its pipelines move to the
 * other worker, without losing the events routed to them in between.
 */
@BrokerTest
class CoordinatorFailoverTest {

    /**
     * A server per test: the coordinators of both tests keep their groups in the same
     * key-value bucket.
     */
    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void restartedCoordinatorKeepsHeartbeatingWorkersAndDiscardsTheStaleHeartbeatsOfAWorkerThatDiedMeanwhile()
            throws Exception {
        String[] group = TestGroups.threeStagesAsProperties("failover");
        List<ClusterNode> nodes = new ArrayList<>();
        ClusterNode coordinator = started(nodes, ClusterNode.coordinator(nats, "jetstream", "coord-failover", group));
        ClusterNode[] workers = startWorkers(nodes);
        ClusterNode survivor = workers[0];
        ClusterNode dead = workers[1];
        Map<String, Integer> askedToRegister = new ConcurrentHashMap<>();
        try (Connection observer = Nats.connect(nats.url())) {
            awaitRunning(coordinator, "failover", null);
            Dispatcher dispatcher = observer
                .createDispatcher(m -> askedToRegister.merge(m.getSubject().split("\\.")[3], 1, Integer::sum));
            dispatcher.subscribe(Subjects.COMMAND_ROOT + ".*." + Commands.REGISTER);
            observer.flush(Duration.ofSeconds(2));
            JetStreamManagement jsm = observer.jetStreamManagement();

            coordinator.close();
            Instant stopped = Instant.now();
            await().atMost(WAIT)
                .until(() -> lastHeartbeat(jsm, "worker-2").isAfter(stopped)
                        && lastHeartbeat(jsm, "worker-1").isAfter(stopped));
            Instant killed = Instant.now();
            dead.kill();
            Instant stale = killed.plus(ClusterNode.HEARTBEAT_TIMEOUT).plus(ClusterNode.HEARTBEAT_INTERVAL);
            await().atMost(WAIT).until(() -> Instant.now().isAfter(stale));

            Instant restarted = Instant.now();
            coordinator = started(nodes, ClusterNode.coordinator(nats, "jetstream", "coord-failover", group));
            ClusterQueries node = coordinator.coordinator();

            await().atMost(WAIT)
                .until(() -> node.worker("worker-1")
                    .filter(w -> w.isReady() && w.registeredAt().isAfter(restarted))
                    .isPresent());
            await().atMost(WAIT).until(() -> survivor.worker().isRegistered());
            awaitRunning(coordinator, "failover", Set.of("worker-1"));
            await().atMost(WAIT).untilAsserted(() -> {
                ConsumerInfo hb = jsm.getConsumerInfo(VarpulisJetStream.HEARTBEAT_STREAM,
                        DurableNames.heartbeatConsumer("coord-failover"));
                assertThat(hb.getNumPending()).as("heartbeats not yet delivered").isZero();
                assertThat(hb.getNumAckPending()).as("heartbeats not yet acked").isZero();
            });
            assertThat(coordinator.metrics().count("varpulis.heartbeats.stale"))
                .as("worker-2's heartbeats, replayed older than heartbeat-timeout")
                .isGreaterThanOrEqualTo(1);
            assertThat(coordinator.metrics().count("varpulis.heartbeats.applied")).isGreaterThanOrEqualTo(1);
            assertThat(node.worker("worker-2")).as("a dead worker is never brought back by its old " + "heartbeats")
                .isEmpty();
            observer.flush(Duration.ofSeconds(2));
            assertThat(askedToRegister).as("only a fresh heartbeat from an unknown worker asks it to register")
                .containsKey("worker-1")
                .doesNotContainKey("worker-2");

            assertThat(coordinator
                .post("/api/v1/cluster/pipeline-groups/failover/inject",
                        Map.of("event_type", "Probe", "fields", Map.of("n", 1)))
                .status()).isEqualTo(202);
            await().atMost(WAIT).until(() -> TestGroups.numbers(survivor.recorded("failover")).contains(1));
        }
        finally {
            closeAll(nodes);
        }
    }

    @Test
    void killedWorkerIsMarkedUnhealthyWithinTheTimeoutPlusOneIntervalAndItsPipelinesMoveToTheOtherWorker()
            throws Exception {
        List<ClusterNode> nodes = new ArrayList<>();
        ClusterNode coordinator = started(nodes, ClusterNode.coordinator(nats, "jetstream", "coord-kill"));
        ClusterNode[] workers = startWorkers(nodes);
        try {
            await().atMost(WAIT)
                .until(() -> coordinator.coordinator().workers().stream().filter(WorkerRecord::isReady).count() == 2);
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("moving")).status())
                .isEqualTo(201);
            Map<String, String> placement = awaitRunning(coordinator, "moving", Set.of("worker-1", "worker-2"));
            ClusterNode victim = placement.get("c").equals("worker-1") ? workers[0] : workers[1];
            ClusterNode survivor = victim == workers[0] ? workers[1] : workers[0];
            inject(coordinator, 0);
            await().atMost(WAIT).until(() -> TestGroups.numbers(victim.recorded("moving")).equals(List.of(0)));
            ClusterQueries node = coordinator.coordinator();

            Instant killed = Instant.now();
            victim.kill();
            for (int n = 1; n <= 5; n++) {
                inject(coordinator, n);
            }

            await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> node.worker(victim.name()).map(w -> !w.isReady()).orElse(false));
            Duration detected = Duration.between(killed, Instant.now());
            // 500 ms for this poll and the scheduling of the coordinator's tick on a
            // loaded machine.
            assertThat(detected).as("time from the kill to unhealthy")
                .isLessThanOrEqualTo(ClusterNode.HEARTBEAT_TIMEOUT.plus(ClusterNode.HEARTBEAT_INTERVAL).plusMillis(500))
                .isGreaterThanOrEqualTo(ClusterNode.HEARTBEAT_TIMEOUT.minus(ClusterNode.HEARTBEAT_INTERVAL));
            assertThat(node.worker(victim.name()).orElseThrow().status()).isEqualTo(WorkerRecord.UNHEALTHY);
            awaitRunning(coordinator, "moving", Set.of(survivor.name()));
            inject(coordinator, 6);
            await().atMost(WAIT)
                .until(() -> TestGroups.numbers(survivor.recorded("moving")).containsAll(List.of(1, 2, 3, 4, 5, 6)));
            assertThat(TestGroups.numbers(survivor.recorded("moving")))
                .as("the events routed while the pipelines moved are applied by their new host, each once")
                .containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6);
            assertThat(coordinator.get("/api/v1/cluster/workers")
                .body()
                .findValues("worker")
                .stream()
                .filter(w -> w.path("worker_id").asText().equals(victim.name()))
                .map(w -> w.path("status").asText())
                .toList()).containsExactly("unhealthy");
        }
        finally {
            closeAll(nodes);
        }
    }

    private ClusterNode[] startWorkers(List<ClusterNode> nodes) {
        var w1 = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats, "jetstream", "worker-1"));
        var w2 = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats, "jetstream", "worker-2"));
        return new ClusterNode[] { started(nodes, w1.join()), started(nodes, w2.join()) };
    }

    private static ClusterNode started(List<ClusterNode> nodes, ClusterNode node) {
        nodes.add(node);
        return node;
    }

    /**
     * Closes every node a test started, coordinators first (closing a closed one does
     * nothing).
     */
    private static void closeAll(List<ClusterNode> nodes) {
        nodes.stream().filter(ClusterNode::isCoordinator).forEach(ClusterNode::close);
        nodes.forEach(ClusterNode::close);
    }

    private static void inject(ClusterNode coordinator, int n) throws Exception {
        assertThat(coordinator
            .post("/api/v1/cluster/pipeline-groups/moving/inject",
                    Map.of("event_type", "Probe", "fields", Map.of("n", n)))
            .status()).isEqualTo(202);
    }

    private static Instant lastHeartbeat(JetStreamManagement jsm, String workerId) throws Exception {
        return jsm.getLastMessage(VarpulisJetStream.HEARTBEAT_STREAM, Subjects.heartbeat(workerId))
            .getTime()
            .toInstant();
    }

    /**
     * Waits until the group's three pipelines are placed (on exactly the given workers,
     * unless {@code null}) and their hosts' heartbeats report them running there.
     * @return the placement
     */
    private static Map<String, String> awaitRunning(ClusterNode coordinator, String group, Set<String> hosts) {
        ClusterQueries node = coordinator.coordinator();
        await().atMost(WAIT).until(() -> {
            Map<String, String> placement = node.placementOf(group);
            if (placement.size() != 3 || hosts != null && !new HashSet<>(placement.values()).equals(hosts)) {
                return false;
            }
            Set<String> running = new HashSet<>();
            for (WorkerRecord worker : node.workers()) {
                if (worker.isReady() && worker.heartbeat() != null) {
                    worker.heartbeat()
                        .pipelineMetrics()
                        .stream()
                        .filter(m -> group.equals(m.group())
                                && worker.workerId().equals(placement.get(m.pipelineName())))
                        .forEach(m -> running.add(m.pipelineName()));
                }
            }
            return running.equals(Set.of("a", "b", "c"));
        });
        return node.placementOf(group);
    }

}
