package io.varpulis.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.impl.Headers;
import io.varpulis.cluster.coordinator.WorkerRecord;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 16's done-means: a pipeline in two partitions on two worker processes, under a
 * steady stream of events of many keys published by an external publisher onto the
 * pipeline's unpartitioned entry subject; the worker running partition 1 is killed with
 * SIGKILL mid-stream. The partition moves to the other worker with a newer placement
 * epoch, its durable consumer carries on where the dead worker stopped, and every event
 * reaches the next edge once: nothing lost, nothing doubled (the outputs' deterministic
 * {@code Nats-Msg-Id}s make a re-emission after a redelivery a duplicate the stream
 * drops).
 */
@BrokerTest
class PartitionWorkerKillTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @TempDir
    Path logs;

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Duration WAIT = Duration.ofSeconds(120);

    private static final String GROUP = "killparts";

    private static final int KEYS = 50;

    @Test
    void nothingIsLostOrDoubledWhenAPartitionsWorkerIsKilledWithSigkill() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-killparts");
                ClusterProcess w1 = worker("worker-k1");
                ClusterProcess w2 = worker("worker-k2");
                Connection client = Nats.connect(nats.url())) {
            await().atMost(WAIT)
                .until(() -> coordinator.coordinator().workers().stream().filter(WorkerRecord::isReady).count() == 2);
            PipelineGroupSpec group = PartitionedPipelineTest.group(GROUP, 2, "filter");
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", group).status()).isEqualTo(201);
            await().atMost(WAIT).until(() -> coordinator.coordinator().placementOf(GROUP).size() == 3);
            Map<String, String> before = coordinator.coordinator().placementOf(GROUP);
            assertThat(before.get("p/0")).as("the two partitions on two workers").isNotEqualTo(before.get("p/1"));
            long epochBefore = coordinator.coordinator().placement(GROUP + "/p/1").orElseThrow().epoch();
            ClusterProcess victim = before.get("p/1").equals(w1.name()) ? w1 : w2;

            JetStream js = client.jetStream();
            String entry = new RouteEdge(GROUP, Subjects.EXTERNAL, "p").subject();
            int sent = 0;
            for (int round = 0; round < 12; round++) {
                if (round == 5) {
                    victim.kill();
                }
                for (int k = 0; k < KEYS; k++) {
                    js.publish(entry, new Headers().put("Nats-Msg-Id", GROUP + "-" + k + "-" + round),
                            JSON.writeValueAsBytes(Event.of("Keyed", Map.of("k", "key-" + k, "s", round))));
                    sent++;
                }
                Thread.sleep(300);
            }

            await().atMost(WAIT)
                .until(() -> coordinator.coordinator()
                    .placement(GROUP + "/p/1")
                    .filter(p -> p.isRunning() && !p.worker().equals(victim.name()))
                    .isPresent());
            assertThat(coordinator.coordinator().placement(GROUP + "/p/1").orElseThrow().epoch())
                .as("moved with a newer placement epoch")
                .isGreaterThan(epochBefore);
            JetStreamManagement jsm = client.jetStreamManagement();
            List<RouteEdge> consumed = new ArrayList<>(group.consumedEdges("p"));
            consumed.addAll(group.consumedEdges("c"));
            await().atMost(WAIT).untilAsserted(() -> {
                for (RouteEdge edge : consumed) {
                    ConsumerInfo info = jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM,
                            DurableNames.routeConsumer(edge.to(), edge.subject()));
                    assertThat(info.getNumPending() + info.getNumAckPending()).as(edge.name() + " drained").isZero();
                }
            });

            List<Message> outputs = PartitionedPipelineTest.messages(client, new RouteEdge(GROUP, "p", "c").subject());
            Map<String, Set<Integer>> byKey = new HashMap<>();
            Set<String> ids = new HashSet<>();
            for (Message output : outputs) {
                Event event = JSON.readValue(output.getData(), Event.class);
                byKey.computeIfAbsent((String) event.fields().get("k"), x -> new HashSet<>())
                    .add(((Number) event.fields().get("s")).intValue());
                ids.add(output.getHeaders().getFirst("Nats-Msg-Id"));
            }
            assertThat(outputs).as("outputs stored on p -> c: each event once, none doubled").hasSize(sent);
            assertThat(ids).hasSize(sent);
            assertThat(byKey).hasSize(KEYS)
                .allSatisfy((key, rounds) -> assertThat(rounds).as(key + ": none lost").hasSize(12));
            assertThat(PartitionedPipelineTest.parked(jsm, "p")).as("nothing parked").isZero();
        }
    }

    private ClusterProcess worker(String id) throws Exception {
        return ClusterProcess.start(id, logs,
                List.of("--varpulis.cluster.role=worker", "--varpulis.nats.url=" + nats.url(),
                        "--varpulis.nats.substrate=jetstream", "--varpulis.cluster.worker-id=" + id,
                        "--varpulis.cluster.heartbeat-interval=" + ClusterNode.HEARTBEAT_INTERVAL.toMillis() + "ms",
                        "--varpulis.cluster.heartbeat-timeout=" + ClusterNode.HEARTBEAT_TIMEOUT.toMillis() + "ms",
                        "--varpulis.cluster.worker-lease-ttl=" + ClusterNode.WORKER_LEASE_TTL.toMillis() + "ms",
                        "--varpulis.cluster.command-timeout=2s", "--varpulis.cluster.registration-max-backoff=2s",
                        // A delivery the killed worker held comes back after 5 s, not 30
                        // s.
                        "--varpulis.nats.jetstream.consumer.ack-wait=5s"));
    }

}
