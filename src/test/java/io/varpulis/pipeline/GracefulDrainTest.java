package io.varpulis.pipeline;

import io.nats.client.Connection;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestThreads;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Graceful drain on a real JetStream server: a host stops pulling, lets in-flight applies
 * finish and ack within the drain timeout, and leaves anything unfinished unacked.
 * Counting every apply per message id across the drained host and a host restarted on the
 * same durable consumer proves that nothing is lost and nothing unfinished was acked.
 */
@BrokerTest
class GracefulDrainTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    /** Short, so that what the first host left unacked comes back within the test. */
    private static final Duration ACK_WAIT = Duration.ofSeconds(2);

    /** One apply: which message, on which delivery attempt, by which host. */
    private record Applied(String messageId, long attempt, String host) {
    }

    @Test
    void applyInFlightWhenTheDrainStarts_finishesAndIsAckedOnce_andNothingIsLost() throws Exception {
        String group = "drain1";
        List<Applied> applied = new CopyOnWriteArrayList<>();
        CountDownLatch secondApplied = new CountDownLatch(2);
        SubstrateFixture first = node();
        PipelineHost firstHost = host(first, (event, context) -> {
            Thread.sleep(150);
            applied.add(new Applied(context.messageId(), context.attempt(), "first"));
            secondApplied.countDown();
            return List.of();
        });
        List<String> ids = publish(first, group, 8);
        firstHost.deploy(group(group), "apply", KeyValueStateFactory.NO_PLACEMENT_EPOCH);
        assertThat(secondApplied.await(10, TimeUnit.SECONDS)).isTrue();

        firstHost.drain(Duration.ofSeconds(10));
        int appliedByFirst = applied.size();
        first.close();

        SubstrateFixture second = node();
        PipelineHost secondHost = host(second, (event, context) -> {
            applied.add(new Applied(context.messageId(), context.attempt(), "second"));
            return List.of();
        });
        secondHost.deploy(group(group), "apply", KeyValueStateFactory.NO_PLACEMENT_EPOCH);
        try {
            await().atMost(Duration.ofSeconds(15)).until(() -> applied.size() >= ids.size());
            assertThat(appliedByFirst).as("the drain let the apply in flight finish").isGreaterThan(2);
            assertThat(applied.subList(0, appliedByFirst)).allMatch(a -> a.host().equals("first"));
            await().during(ACK_WAIT.plusSeconds(1))
                .atMost(ACK_WAIT.plusSeconds(3))
                .untilAsserted(
                        () -> assertThat(countById(applied)).as("every event applied exactly once across both hosts")
                            .containsOnlyKeys(ids)
                            .allSatisfy((id, count) -> assertThat(count).isEqualTo(1)));
            assertSettled(second, group);
        }
        finally {
            secondHost.close();
            second.close();
        }
    }

    @Test
    void applyStillRunningAtTheDrainTimeout_isLeftUnacked_andRedeliveredToTheRestartedHost() throws Exception {
        String group = "drain2";
        List<Applied> applied = new CopyOnWriteArrayList<>();
        CountDownLatch stuckStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        SubstrateFixture first = node();
        List<String> ids = publish(first, group, 6);
        String stuck = ids.get(2);
        PipelineHost firstHost = host(first, (event, context) -> {
            if (context.messageId().equals(stuck)) {
                stuckStarted.countDown();
                release.await();
            }
            if (first.connection.getStatus() == Connection.Status.CLOSED) {
                throw new IllegalStateException("the first host's process has exited");
            }
            applied.add(new Applied(context.messageId(), context.attempt(), "first"));
            return List.of();
        });
        firstHost.deploy(group(group), "apply", KeyValueStateFactory.NO_PLACEMENT_EPOCH);
        assertThat(stuckStarted.await(10, TimeUnit.SECONDS)).isTrue();

        long started = System.nanoTime();
        firstHost.drain(Duration.ofMillis(300));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the drain timeout bounds the shutdown")
            .isLessThan(Duration.ofSeconds(3));
        first.close();
        release.countDown();

        SubstrateFixture second = node();
        PipelineHost secondHost = host(second, (event, context) -> {
            applied.add(new Applied(context.messageId(), context.attempt(), "second"));
            return List.of();
        });
        secondHost.deploy(group(group), "apply", KeyValueStateFactory.NO_PLACEMENT_EPOCH);
        try {
            await().atMost(Duration.ofSeconds(15)).until(() -> applied.size() >= ids.size());
            await().during(ACK_WAIT.plusSeconds(1)).atMost(ACK_WAIT.plusSeconds(3)).untilAsserted(() -> {
                assertThat(applied).filteredOn(a -> a.host().equals("first"))
                    .extracting(Applied::messageId)
                    .containsExactly(ids.get(0), ids.get(1));
                assertThat(applied).filteredOn(a -> a.messageId().equals(stuck)).singleElement().satisfies(a -> {
                    assertThat(a.host()).isEqualTo("second");
                    assertThat(a.attempt()).as("it was delivered before and never acked").isGreaterThanOrEqualTo(2);
                });
                assertThat(countById(applied)).as("none lost, none applied twice")
                    .containsOnlyKeys(ids)
                    .allSatisfy((id, count) -> assertThat(count).isEqualTo(1));
            });
            assertSettled(second, group);
        }
        finally {
            secondHost.close();
            second.close();
        }
    }

    @Test
    void drainOfAnIdlePipelineReturnsWithoutWaitingOutItsTimeout() throws Exception {
        String group = "drain3";
        List<Applied> applied = new CopyOnWriteArrayList<>();
        try (SubstrateFixture node = node()) {
            List<String> ids = publish(node, group, 3);
            PipelineHost host = host(node, (event, context) -> {
                applied.add(new Applied(context.messageId(), context.attempt(), "only"));
                return List.of();
            });
            host.deploy(group(group), "apply", KeyValueStateFactory.NO_PLACEMENT_EPOCH);
            await().atMost(Duration.ofSeconds(10)).until(() -> applied.size() == ids.size());

            long started = System.nanoTime();
            assertThat(host.drain(Duration.ofSeconds(20))).isEqualTo(1);

            assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("a rolling restart must not wait drain-timeout (here 20 s) when nothing is in flight")
                .isLessThan(Duration.ofSeconds(5));
            assertSettled(node, group);
        }
    }

    private static SubstrateFixture node() throws Exception {
        SubstrateFixture node = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
        node.properties.consumer().setAckWait(ACK_WAIT);
        return node;
    }

    private static PipelineHost host(SubstrateFixture node, EventProcessor processor) {
        ProcessorType recording = new ProcessorType() {
            @Override
            public String name() {
                return "recording";
            }

            @Override
            public EventProcessor create(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline) {
                return processor;
            }
        };
        return new PipelineHost(node.containers, new ProcessorRegistry(List.of(recording)),
                KeyValueStateFactory.inMemory(), node.codec, node.metrics, node.consumer(), TestThreads.host());
    }

    private static PipelineGroupSpec group(String name) {
        return new PipelineGroupSpec(name,
                List.of(new PipelineGroupSpec.PipelineSpec("apply",
                        new PipelineGroupSpec.ProcessorSpec("recording", Map.of()))),
                List.of(new PipelineGroupSpec.RouteSpec("_external", "apply", null)))
            .validate();
    }

    private static List<String> publish(SubstrateFixture node, String group, int count) throws Exception {
        RouteEdge edge = new RouteEdge(group, "_external", "apply");
        List<String> ids = IntStream.rangeClosed(1, count).mapToObj(i -> group + "-" + i).toList();
        for (String id : ids) {
            node.transport
                .publish(new OutboundMessage(edge.subject(), node.codec.encode(Event.of("Work", Map.of("id", id))), id))
                .get();
        }
        return ids;
    }

    private static Map<String, Long> countById(List<Applied> applied) {
        return applied.stream().collect(Collectors.groupingBy(Applied::messageId, Collectors.counting()));
    }

    private static void assertSettled(SubstrateFixture node, String group) throws Exception {
        RouteEdge edge = new RouteEdge(group, "_external", "apply");
        ConsumerInfo info = node.jsm()
            .getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, DurableNames.routeConsumer("apply", edge.subject()));
        assertThat(info.getNumPending()).isZero();
        assertThat(info.getNumAckPending()).isZero();
    }

}
