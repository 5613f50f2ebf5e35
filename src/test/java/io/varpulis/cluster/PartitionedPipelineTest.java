package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.impl.Headers;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 16 (SPEC section 11) on a real broker, with a coordinator and three workers in
 * this JVM: a pipeline declared with {@code replicas: 3} and {@code partition_key: "k"}
 * runs as three partitions on three workers, each with its own durable and placement
 * epoch; events of forty keys, injected through the operator API (routed straight to
 * their partitions) and published by an external publisher onto the unpartitioned entry
 * subject (partitioned by the pipeline's repartitioner), reach the next pipeline once
 * each, every key's events in order and on the one partition its hash names; an event
 * published on a partition that does not own its key is republished to the one that does;
 * an event without the key is parked ({@code unprocessable}).
 */
@BrokerTest
class PartitionedPipelineTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final String GROUP = "parts";

    private static final int PARTITIONS = 3;

    private static final int KEYS = 40;

    private static final int PER_KEY = 8;

    static PipelineGroupSpec group(String name, int partitions, String last) {
        return new PipelineGroupSpec(name,
                List.of(new PipelineSpec("p", new ProcessorSpec("passthrough", Map.of()), partitions, "k"),
                        new PipelineSpec("c",
                                new ProcessorSpec(last,
                                        last.equals("bean") ? Map.of("bean", ClusterNode.RECORDER)
                                                : Map.of("expression", "event_type == 'None'")))),
                List.of(new RouteSpec("_external", "p", List.of("Keyed")), new RouteSpec("p", "c", List.of("*"))));
    }

    @Test
    void eventsOfManyKeysSpreadOverThePartitionsEachKeyInOrderOnTheOnePartitionItsHashNames() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-parts");
                ClusterNode w1 = ClusterNode.worker(nats, "jetstream", "worker-p1");
                ClusterNode w2 = ClusterNode.worker(nats, "jetstream", "worker-p2");
                ClusterNode w3 = ClusterNode.worker(nats, "jetstream", "worker-p3");
                Connection client = Nats.connect(nats.url())) {
            List<ClusterNode> workers = List.of(w1, w2, w3);
            await().atMost(WAIT).until(() -> workers.stream().allMatch(w -> w.worker().isRegistered()));
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", group(GROUP, PARTITIONS, "bean")).status())
                .isEqualTo(201);
            await().atMost(WAIT).until(() -> coordinator.coordinator().placementOf(GROUP).size() == PARTITIONS + 1);

            Map<String, String> placement = coordinator.coordinator().placementOf(GROUP);
            assertThat(placement).containsOnlyKeys("p/0", "p/1", "p/2", "c");
            assertThat(Set.of(placement.get("p/0"), placement.get("p/1"), placement.get("p/2")))
                .as("one partition per worker, there being three")
                .hasSize(3);
            Set<Long> epochs = new HashSet<>();
            coordinator.coordinator()
                .placements()
                .keySet()
                .forEach(key -> coordinator.coordinator().placement(key).ifPresent(p -> epochs.add(p.epoch())));
            assertThat(epochs).as("a placement epoch per unit").hasSize(PARTITIONS + 1);

            JetStream js = client.jetStream();
            String entry = new RouteEdge(GROUP, Subjects.EXTERNAL, "p").subject();
            for (int s = 0; s < PER_KEY; s++) {
                for (int k = 0; k < KEYS; k++) {
                    Map<String, Object> fields = Map.of("k", "key-" + k, "s", s);
                    if (k % 2 == 0) {
                        assertThat(coordinator
                            .post("/api/v1/cluster/pipeline-groups/" + GROUP + "/inject",
                                    Map.of("event_type", "Keyed", "fields", fields))
                            .status()).isEqualTo(202);
                    }
                    else {
                        js.publish(entry, new Headers().put("Nats-Msg-Id", "ext-" + k + "-" + s),
                                JSON.writeValueAsBytes(Event.of("Keyed", fields)));
                    }
                }
            }
            js.publish(entry, JSON.writeValueAsBytes(Event.of("Keyed", Map.of("s", 0))));

            await().atMost(WAIT).until(() -> recorded(workers).size() >= KEYS * PER_KEY);
            List<Event> applied = recorded(workers);
            assertThat(applied).as("every event once").hasSize(KEYS * PER_KEY);
            Map<String, List<Integer>> byKey = new LinkedHashMap<>();
            applied.forEach(e -> byKey.computeIfAbsent((String) e.fields().get("k"), x -> new ArrayList<>())
                .add(((Number) e.fields().get("s")).intValue()));
            assertThat(byKey).hasSize(KEYS)
                .allSatisfy((key, order) -> assertThat(order).as(key + "'s events, in " + "the order they were sent")
                    .containsExactly(0, 1, 2, 3, 4, 5, 6, 7));

            JetStreamManagement jsm = client.jetStreamManagement();
            Map<Integer, Set<String>> keysOnPartition = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                for (Message m : messages(client, new RouteEdge(GROUP, Subjects.EXTERNAL, "p", p).subject())) {
                    Event event = JSON.readValue(m.getData(), Event.class);
                    keysOnPartition.computeIfAbsent(p, x -> new HashSet<>()).add((String) event.fields().get("k"));
                }
            }
            assertThat(keysOnPartition).as("every partition gets keys").hasSize(PARTITIONS);
            keysOnPartition.forEach((p, keys) -> assertThat(keys)
                .allSatisfy(key -> assertThat(Partitioning.partitionOf(key, PARTITIONS)).as(key).isEqualTo(p)));
            assertThat(keysOnPartition.values().stream().mapToInt(Set::size).sum()).as("each key on one partition")
                .isEqualTo(KEYS);

            // Published by hand on a partition that does not own the key: republished to
            // the one that does.
            int owner = Partitioning.partitionOf("key-0", PARTITIONS);
            js.publish(new RouteEdge(GROUP, Subjects.EXTERNAL, "p", (owner + 1) % PARTITIONS).subject(),
                    JSON.writeValueAsBytes(Event.of("Keyed", Map.of("k", "key-0", "s", PER_KEY))));
            await().atMost(WAIT).until(() -> recorded(workers).size() == KEYS * PER_KEY + 1);
            assertThat(recorded(workers).get(KEYS * PER_KEY).fields()).containsEntry("k", "key-0")
                .containsEntry("s", PER_KEY);

            await().atMost(WAIT).until(() -> parked(jsm, "p") == 1);
            MessageInfo death = jsm.getLastMessage(VarpulisJetStream.DLQ_STREAM, DurableNames.dlqSubject("p"));
            JsonNode envelope = JSON.readTree(death.getData());
            assertThat(envelope.path("reason").asText()).isEqualTo("unprocessable");
            assertThat(envelope.path("original_subject").asText()).isEqualTo(entry);
            assertThat(envelope.path("last_error").asText()).contains("no field k");

            for (int p = 0; p < PARTITIONS; p++) {
                RouteEdge edge = new RouteEdge(GROUP, Subjects.EXTERNAL, "p", p);
                int partition = p;
                await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM,
                            DurableNames.routeConsumer("p", edge.subject())))
                        .satisfies(info -> assertThat(info.getNumPending() + info.getNumAckPending())
                            .as("partition " + partition + " drained")
                            .isZero()));
            }
            await().atMost(WAIT)
                .untilAsserted(
                        () -> assertThat(reportedPartitions(coordinator, "p")).containsExactlyInAnyOrder(0, 1, 2));
            double applied0 = workers.stream()
                .mapToDouble(w -> w.metrics().count("varpulis.events.applied", "pipeline", "p", "partition", "0"))
                .sum();
            assertThat(applied0).as("applied{pipeline=p, partition=0}").isPositive();

            JsonNode topology = coordinator.get("/api/v1/cluster/topology").body();
            assertThat(topology.toString()).contains("\"partition_key\":\"k\"",
                    "varpulis.cluster.pipeline.parts._external.p.2",
                    "route_p__varpulis_cluster_pipeline_parts__external_p_2");
        }
    }

    @Test
    void replicasWithoutAPartitionKeyIsRefusedWith400NamingTheField() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-parts-400")) {
            PipelineGroupSpec noKey = new PipelineGroupSpec("nokey",
                    List.of(new PipelineSpec("p", new ProcessorSpec("passthrough", Map.of()), 2, null)),
                    List.of(new RouteSpec("_external", "p", null)));
            ClusterNode.Response refused = coordinator.post("/api/v1/cluster/pipeline-groups", noKey);
            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.body().toString()).contains("partition_key");
            PipelineGroupSpec tooMany = new PipelineGroupSpec("toomany",
                    List.of(new PipelineSpec("p", new ProcessorSpec("passthrough", Map.of()), 65, "k")),
                    List.of(new RouteSpec("_external", "p", null)));
            ClusterNode.Response bounded = coordinator.post("/api/v1/cluster/pipeline-groups", tooMany);
            assertThat(bounded.status()).isEqualTo(400);
            assertThat(bounded.body().toString()).contains("between 1 and 64", "varpulis.cluster.max-partitions");
        }
    }

    private static List<Event> recorded(List<ClusterNode> workers) {
        List<Event> all = new ArrayList<>();
        workers.forEach(w -> all.addAll(w.recorded(GROUP)));
        return all;
    }

    /**
     * The partitions of a pipeline that the workers' last heartbeats report
     * ({@code pipeline_metrics[].partition}).
     */
    private static List<Integer> reportedPartitions(ClusterNode coordinator, String pipeline) {
        List<Integer> partitions = new ArrayList<>();
        coordinator.coordinator().workers().forEach(w -> {
            if (w.heartbeat() != null) {
                w.heartbeat()
                    .pipelineMetrics()
                    .stream()
                    .filter(m -> GROUP.equals(m.group()) && pipeline.equals(m.pipelineName()) && m.partition() != null)
                    .forEach(m -> partitions.add(m.partition()));
            }
        });
        return partitions;
    }

    static List<Message> messages(Connection client, String subject) throws Exception {
        List<Message> all = new ArrayList<>();
        long stored = client.jetStreamManagement()
            .getStreamInfo(VarpulisJetStream.ROUTING_STREAM, StreamInfoOptions.filterSubjects(subject))
            .getStreamState()
            .getSubjects()
            .stream()
            .filter(s -> s.getName().equals(subject))
            .mapToLong(s -> s.getCount())
            .sum();
        try (IterableConsumer consumer = client.getStreamContext(VarpulisJetStream.ROUTING_STREAM)
            .createOrderedConsumer(new OrderedConsumerConfiguration().filterSubject(subject))
            .iterate()) {
            while (all.size() < stored) {
                Message m = consumer.nextMessage(Duration.ofSeconds(5));
                if (m == null) {
                    break;
                }
                all.add(m);
            }
        }
        return all;
    }

    static long parked(JetStreamManagement jsm, String unit) throws Exception {
        String subject = DurableNames.dlqSubject(unit);
        var subjects = jsm.getStreamInfo(VarpulisJetStream.DLQ_STREAM, StreamInfoOptions.filterSubjects(subject))
            .getStreamState()
            .getSubjects();
        return subjects == null ? 0
                : subjects.stream().filter(s -> s.getName().equals(subject)).mapToLong(s -> s.getCount()).sum();
    }

}
