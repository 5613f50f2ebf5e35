package io.varpulis.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.NatsTestProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestThreads;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a worker's pipeline host enforces on every edge (SPEC sections 6 and 9): an edge
 * applies only the event types its routes declare, and a pipeline whose state a later
 * placement took over stops on this worker, leaving its events to the owner.
 */
@ExtendWith(OutputCaptureExtension.class)
@BrokerTest
class PipelineHostTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void anEventTypeTheEdgeDoesNotCarryIsParkedAsUnroutable_neverApplied() throws Exception {
        List<String> applied = new CopyOnWriteArrayList<>();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            PipelineHost host = host(worker, (event, context) -> {
                applied.add(event.eventType());
                return List.of();
            }, KeyValueStateFactory.inMemory());
            PipelineGroupSpec group = group("routed", List.of("Ssh*"));
            host.deploy(group, "detect", KeyValueStateFactory.NO_PLACEMENT_EPOCH);
            RouteEdge edge = new RouteEdge("routed", "_external", "detect");
            String longType = "X".repeat(10_000);
            for (String type : List.of("SshAuthFailure", "HttpRequest", longType)) {
                worker.transport
                    .publish(new OutboundMessage(edge.subject(),
                            worker.codec.encode(Event.of(type, Map.of("src_ip", "10.0.0.9"))),
                            "routed-" + type.length() + type.charAt(0)))
                    .get(5, TimeUnit.SECONDS);
            }

            await().atMost(Duration.ofSeconds(15))
                .until(() -> worker.metrics.count("varpulis.events.parked", "unit", "detect", "reason",
                        "unroutable") == 2);
            host.close();
            assertThat(applied).containsExactly("SshAuthFailure");
            List<JsonNode> parked = parked(worker);
            assertThat(parked).extracting(p -> p.path("reason").asText()).containsOnly("unroutable");
            // Two parks run side by side: the DLQ holds them in whichever order their
            // envelopes were stored.
            assertThat(parked).extracting(p -> p.path("attempts").asLong()).containsOnly(1L);
            assertThat(parked).extracting(p -> p.path("last_error").asText())
                .hasSize(2)
                .contains("event type HttpRequest is not accepted by route _external->detect (Ssh*)")
                .anySatisfy(error -> assertThat(error).contains("(10000 characters)").hasSizeLessThan(400));
        }
    }

    @Test
    void aPipelineWhoseStateALaterPlacementTookOverStopsOnThisWorker_andTheOwnerCountsEveryEventOnce(
            CapturedOutput output) throws Exception {
        NatsTestProperties properties = new NatsTestProperties();
        properties.consumer().setAckWait(Duration.ofSeconds(2));
        properties.consumer().setNakDelay(SubstrateFixture.TEST_NAK_DELAY);
        int events = 400;
        try (SubstrateFixture zombieWorker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, properties);
                SubstrateFixture ownerWorker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM, properties)) {
            PipelineGroupSpec group = group("fenced", List.of("*"));
            PipelineHost zombie = host(zombieWorker, counting(), states(zombieWorker));
            PipelineHost owner = host(ownerWorker, counting(), states(ownerWorker));
            RouteEdge edge = new RouteEdge("fenced", "_external", "detect");
            zombie.deploy(group, "detect", 1);
            List<CompletableFuture<?>> firstHalf = new ArrayList<>();
            for (int i = 0; i < events / 2; i++) {
                firstHalf.add(zombieWorker.transport.publish(new OutboundMessage(edge.subject(),
                        zombieWorker.codec.encode(Event.of("Tick", Map.of("n", i))), "fenced-" + i)));
            }
            await().atMost(Duration.ofSeconds(15)).until(() -> zombie.eventsProcessed() >= 50);

            // A later placement of the same pipeline (the coordinator thought the first
            // worker dead).
            owner.deploy(group, "detect", 2);
            for (int i = events / 2; i < events; i++) {
                ownerWorker.transport
                    .publish(new OutboundMessage(edge.subject(),
                            ownerWorker.codec.encode(Event.of("Tick", Map.of("n", i))), "fenced-" + i))
                    .get(5, TimeUnit.SECONDS);
            }

            CompletableFuture.allOf(firstHalf.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> zombie.status().isEmpty());
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                var info = ownerWorker.jsm()
                    .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM,
                            DurableNames.routeConsumer("detect", edge.subject()));
                return info.getNumPending() == 0 && info.getNumAckPending() == 0;
            });
            KeyValueState verify = states(ownerWorker).open("fenced", "detect", Partitioning.NONE, 3);
            assertThat(new String(verify.get("total").orElseThrow(), StandardCharsets.UTF_8))
                .as("every event counted once, though two workers ran the pipeline for a while")
                .isEqualTo(Integer.toString(events));
            verify.close();
            assertThat(zombieWorker.metrics.count("varpulis.state.fenced", "pipeline", "detect")).isEqualTo(1);
            assertThat(output).contains("pipeline fenced/detect (placement epoch 1) stops consuming on this worker")
                .contains("no longer owns it and stops");
            assertThat(zombieWorker.metrics.count("varpulis.events.parked", "unit", "detect", "reason", "max_deliver"))
                .isZero();
            owner.close();
            zombie.close();
        }
    }

    @Test
    void aPipelineWhoseBucketIsDeletedUnderItStopsLoudly_sayingSoInItsStateFailures_andRunsAgainWhenDeployedAgain(
            CapturedOutput output) throws Exception {
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            PipelineGroupSpec group = group("lost", List.of("*"));
            PipelineHost host = host(worker, counting(), states(worker));
            RouteEdge edge = new RouteEdge("lost", "_external", "detect");
            String bucket = JetStreamKeyValueState.bucketName("lost", "detect");
            host.deploy(group, "detect", 1);
            publishTicks(worker, edge, 0, 20);
            await().atMost(Duration.ofSeconds(15)).until(() -> host.eventsProcessed() >= 20);

            worker.connection.keyValueManagement().delete(bucket);
            publishTicks(worker, edge, 20, 40);

            await().atMost(Duration.ofSeconds(15)).until(() -> host.status().isEmpty());
            assertThat(host.stateFailures()).containsKey("lost/detect");
            assertThat(host.stateFailures().get("lost/detect")).contains(bucket).contains("deleted");
            assertThat(output).contains("ERROR")
                .contains("pipeline lost/detect (placement epoch 1) stops consuming")
                .contains("state bucket " + bucket + " was deleted");

            // The coordinator places it again (a deploy): a new bucket, the events not
            // acked applied there.
            assertThat(host.deploy(group, "detect", 2)).isTrue();
            assertThat(host.stateFailures()).isEmpty();
            await().atMost(Duration.ofSeconds(30))
                .until(() -> JetStreamKeyValueState
                    .readFromLeader(worker.connection, bucket, "seen.39", Duration.ofSeconds(2))
                    .isPresent());
            assertThat(host.status()).hasSize(1);
            host.close();
        }
    }

    @Test
    void eachPartitionsStateIsFencedByItsOwnPlacementEpoch() throws Exception {
        try (SubstrateFixture a = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                SubstrateFixture b = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            PipelineGroupSpec group = new PipelineGroupSpec("pfenced",
                    List.of(new PipelineGroupSpec.PipelineSpec("detect",
                            new PipelineGroupSpec.ProcessorSpec("test", Map.of()), 2, "src_ip")),
                    List.of(new PipelineGroupSpec.RouteSpec("_external", "detect", null)))
                .validate();
            PipelineHost hostA = host(a, counting(), states(a));
            PipelineHost hostB = host(b, counting(), states(b));

            assertThat(hostA.deploy(group, "detect", 0, 7)).isTrue();
            assertThat(hostB.deploy(group, "detect", 1, 3))
                .as("partition 1's state knows nothing of partition 0's " + "epoch 7")
                .isTrue();
            assertThatThrownBy(() -> hostB.deploy(group, "detect", 0, 6)).as("partition 0 is held by epoch 7")
                .isInstanceOf(KeyValueState.StateFencedException.class);
            assertThatThrownBy(() -> hostB.deploy(group, "detect", 2, 8)).hasMessageContaining("partition 2 is none");
            assertThat(hostA.status()).extracting(PipelineHost.PipelineStatus::partition).containsExactly(0);
            assertThat(hostB.status()).extracting(PipelineHost.PipelineStatus::partition).containsExactly(1);
            assertThat(a.jsm().getConsumerNames(VarpulisJetStream.ROUTING_STREAM)).contains(
                    DurableNames.routeConsumer("detect", "varpulis.cluster.pipeline.pfenced._external.detect"),
                    DurableNames.routeConsumer("detect", "varpulis.cluster.pipeline.pfenced._external.detect.0"),
                    DurableNames.routeConsumer("detect", "varpulis.cluster.pipeline.pfenced._external.detect.1"));
            hostA.close();
            hostB.close();
        }
    }

    /**
     * Issue 43's soak: a worker's threads stepped up each time a pipeline was placed on
     * it and stayed up after the pipeline moved away. jnats' {@code consume(handler)}
     * makes a dispatcher (a thread) per consumer context and only unsubscribes it when
     * the consumer closes; each edge consumed must close its own.
     */
    @Test
    void aPipelineUndeployedLeavesNoNatsDispatcherThreadBehind_deployedAndUndeployedFiveTimes() throws Exception {
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            PipelineGroupSpec group = group("visits", List.of("*"));
            PipelineHost host = host(worker, counting(), KeyValueStateFactory.inMemory());
            RouteEdge edge = new RouteEdge("visits", "_external", "detect");
            // The first visit makes what a connection keeps once (the given-up
            // advisories'
            // dispatcher).
            visit(worker, host, group, edge, 0);
            Set<Thread> before = dispatcherThreads();
            for (int visit = 1; visit <= 5; visit++) {
                visit(worker, host, group, edge, visit);
            }
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(dispatcherThreads()).as("dispatcher threads left by five visits")
                    .isSubsetOf(before));
            host.close();
        }
    }

    private static void visit(SubstrateFixture worker, PipelineHost host, PipelineGroupSpec group, RouteEdge edge,
            int visit) throws Exception {
        assertThat(host.deploy(group, "detect", KeyValueStateFactory.NO_PLACEMENT_EPOCH)).isTrue();
        long processed = host.eventsProcessed();
        publishTicks(worker, edge, visit * 10, visit * 10 + 10);
        await().atMost(Duration.ofSeconds(15)).until(() -> host.eventsProcessed() >= processed + 10);
        assertThat(host.undeploy(group.name(), "detect")).isTrue();
    }

    /**
     * @return the live threads running a jnats dispatcher (each connection's
     * subscriptions with a handler are served by one)
     */
    private static Set<Thread> dispatcherThreads() {
        return Thread.getAllStackTraces()
            .entrySet()
            .stream()
            .filter(t -> t.getKey().isAlive() && Arrays.stream(t.getValue())
                .anyMatch(f -> f.getClassName().equals("io.nats.client.impl.NatsDispatcher")))
            .map(Map.Entry::getKey)
            .collect(Collectors.toSet());
    }

    private static void publishTicks(SubstrateFixture worker, RouteEdge edge, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            worker.transport
                .publish(new OutboundMessage(edge.subject(), worker.codec.encode(Event.of("Tick", Map.of("n", i))),
                        edge.group() + "-" + i))
                .get(5, TimeUnit.SECONDS);
        }
    }

    private static EventProcessor counting() {
        return (event, context) -> {
            String seen = "seen." + event.fields().get("n");
            KeyValueState state = context.state();
            if (state.get(seen).isEmpty()) {
                state.put(seen, new byte[] { 1 });
                long total = state.get("total")
                    .map(v -> Long.parseLong(new String(v, StandardCharsets.UTF_8)))
                    .orElse(0L);
                state.put("total", Long.toString(total + 1).getBytes(StandardCharsets.UTF_8));
            }
            return List.of();
        };
    }

    private static KeyValueStateFactory states(SubstrateFixture worker) {
        return KeyValueStateFactory.jetStream(worker.connection, worker.transport,
                new JetStreamKeyValueState.Settings(Duration.ofHours(1), 1, Duration.ofSeconds(2), 100_000),
                TestThreads.states());
    }

    private static PipelineHost host(SubstrateFixture worker, EventProcessor processor, KeyValueStateFactory states) {
        return worker.host(processor, states);
    }

    private static PipelineGroupSpec group(String name, List<String> eventTypes) {
        return new PipelineGroupSpec(name,
                List.of(new PipelineGroupSpec.PipelineSpec("detect",
                        new PipelineGroupSpec.ProcessorSpec("test", Map.of()))),
                List.of(new PipelineGroupSpec.RouteSpec("_external", "detect", eventTypes)))
            .validate();
    }

    private static List<JsonNode> parked(SubstrateFixture worker) throws Exception {
        var state = worker.jsm().getStreamInfo(VarpulisJetStream.DLQ_STREAM).getStreamState();
        List<JsonNode> parked = new CopyOnWriteArrayList<>();
        for (long seq = state.getFirstSequence(); seq <= state.getLastSequence(); seq++) {
            parked.add(worker.codec.mapper()
                .readTree(worker.jsm().getMessage(VarpulisJetStream.DLQ_STREAM, seq).getData()));
        }
        return parked;
    }

}
