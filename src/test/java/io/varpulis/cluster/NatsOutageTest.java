package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.varpulis.cluster.coordinator.ClusterQueries;
import io.varpulis.cluster.coordinator.WorkerRecord;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 11, item 6: a NATS outage is not a worker death. The real server is stopped for
 * three heartbeat-timeouts while a coordinator and two workers run; the heartbeats the
 * coordinator could not receive are not counted against the workers: the one that lives
 * through it is never marked unhealthy and keeps its pipelines, and the one killed during
 * the outage is marked unhealthy only a full heartbeat-timeout after the coordinator
 * reached NATS again; its pipelines then move with new placement epochs, and the group
 * store is still watched.
 */
@BrokerTest
class NatsOutageTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(60);

    /**
     * Longer than the other cluster tests': both sides must reconnect (2 s apart at
     * worst) within it.
     */
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private static final String[] SLOW = { "--varpulis.cluster.heartbeat-timeout=" + TIMEOUT.toMillis() + "ms",
            "--varpulis.cluster.worker-lease-ttl=" + TIMEOUT.toMillis() + "ms" };

    @Test
    void workersAreNotMarkedUnhealthyForHeartbeatsMissedWhileTheCoordinatorCouldNotReachNats() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats.url(), "jetstream", "coord-outage", SLOW)) {
            var starting1 = CompletableFuture
                .supplyAsync(() -> ClusterNode.worker(nats.url(), "jetstream", "worker-lives", false, SLOW));
            var starting2 = CompletableFuture
                .supplyAsync(() -> ClusterNode.worker(nats.url(), "jetstream", "worker-dies", false, SLOW));
            ClusterNode lives = starting1.join();
            ClusterNode dies = starting2.join();
            ClusterQueries node = coordinator.coordinator();
            Map<String, Instant> unhealthyAt = new ConcurrentHashMap<>();
            Thread watcher = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    node.workers()
                        .stream()
                        .filter(w -> !w.isReady())
                        .forEach(w -> unhealthyAt.putIfAbsent(w.workerId(), Instant.now()));
                    try {
                        Thread.sleep(20);
                    }
                    catch (InterruptedException e) {
                        return;
                    }
                }
            }, "unhealthy-watcher");
            try {
                await().atMost(WAIT).until(() -> lives.worker().isRegistered() && dies.worker().isRegistered());
                assertThat(
                        coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("outage")).status())
                    .isEqualTo(201);
                await().atMost(WAIT).until(() -> coordinator.coordinator().placementOf("outage").size() == 3);
                Map<String, String> before = node.placementOf("outage");
                watcher.start();

                nats.stop();
                Thread.sleep(TIMEOUT.toMillis() / 2);
                dies.kill();
                Thread.sleep(TIMEOUT.multipliedBy(3).toMillis());
                nats.start();
                Instant back = Instant.now();

                await().atMost(WAIT).until(() -> unhealthyAt.containsKey("worker-dies"));
                await().atMost(WAIT)
                    .until(() -> node.worker("worker-lives").map(WorkerRecord::isReady).orElse(false)
                            && lives.worker().isRegistered());
                await().during(TIMEOUT)
                    .atMost(TIMEOUT.plusSeconds(2))
                    .untilAsserted(() -> assertThat(unhealthyAt).as("the worker that lived through the outage")
                        .doesNotContainKey("worker-lives"));
                assertThat(unhealthyAt.get("worker-dies"))
                    .as("the killed worker got a full timeout from the " + "reconnection")
                    .isAfterOrEqualTo(back.plus(TIMEOUT));
                before.forEach((pipeline, worker) -> {
                    if (worker.equals("worker-lives")) {
                        assertThat(node.placementOf("outage")).as("never moved").containsEntry(pipeline, worker);
                    }
                });
                await().atMost(WAIT)
                    .until(() -> List.copyOf(node.placementOf("outage").values())
                        .stream()
                        .allMatch("worker-lives"::equals) && node.placementOf("outage").size() == 3);
                assertThat(lives.context().getBean(PipelineHost.class).status()).as("placement epochs stay unique")
                    .extracting(PipelineHost.PipelineStatus::epoch)
                    .doesNotHaveDuplicates();

                try (Connection operator = Nats.connect(nats.url())) {
                    operator.keyValue(ControlPlaneBuckets.GROUPS).delete(Commands.DEFAULT_CLUSTER + ".outage");
                }
                await("the group store is still watched after the outage").atMost(WAIT)
                    .until(() -> node.group("outage").isEmpty()
                            && lives.worker().currentHeartbeat().pipelinesRunning() == 0);
            }
            finally {
                watcher.interrupt();
                lives.close();
                dies.close();
            }
        }
    }

}
