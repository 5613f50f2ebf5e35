package io.varpulis.substrate;

import io.varpulis.cluster.coordinator.HeartbeatListener;
import io.varpulis.cluster.coordinator.ServerClock;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 8, behaviours 6 and 7: heartbeats survive a coordinator restart on
 * JetStream (and are lost on core), and a replayed heartbeat older than heartbeat-timeout
 * is discarded, never applied.
 */
@BrokerTest
class HeartbeatDurabilityTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final String BEAT = "{\"events_processed\": 42, \"pipelines_running\": 1, \"pipeline_metrics\": "
            + "[{\"pipeline_name\": \"detect\", \"events_in\": 42, \"events_out\": 3}]}";

    @Test
    void heartbeatPublishedWhileTheCoordinatorIsDownReachesItWhenItIsBack() throws Exception {
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            worker.transport.publish(OutboundMessage.of(Subjects.heartbeat("w-6"), BEAT)).get();
        }
        Map<String, WorkerHeartbeat> seen = new ConcurrentHashMap<>();
        try (SubstrateFixture coordinator = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                Consumption ignored = listener(coordinator, "coord-6", Duration.ofSeconds(15), seen)
                    .start(coordinator.containers, coordinator.consumer())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey("w-6"));
            WorkerHeartbeat heartbeat = seen.get("w-6");
            assertThat(heartbeat.eventsProcessed()).isEqualTo(42);
            assertThat(heartbeat.pipelineMetrics())
                .containsExactly(new WorkerHeartbeat.PipelineMetric("detect", 42, 3, null, null, null));
            assertThat(coordinator.metrics.count("varpulis.heartbeats.applied")).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void heartbeatPublishedWhileTheCoordinatorIsDownIsLostOnCore() throws Exception {
        Map<String, WorkerHeartbeat> seen = new ConcurrentHashMap<>();
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.CORE)) {
            worker.transport.publish(OutboundMessage.of(Subjects.heartbeat("w-core"), BEAT)).get();
            worker.connection.flush(Duration.ofSeconds(2));
            try (SubstrateFixture coordinator = SubstrateFixture.connect(nats.url(), Substrate.CORE);
                    Consumption ignored = listener(coordinator, "coord-core", Duration.ofSeconds(15), seen)
                        .start(coordinator.containers, coordinator.consumer())) {
                coordinator.connection.flush(Duration.ofSeconds(2));
                worker.transport.publish(OutboundMessage.of(Subjects.heartbeat("w-core-later"), BEAT)).get();
                await().atMost(Duration.ofSeconds(5)).until(() -> seen.containsKey("w-core-later"));
                assertThat(seen).doesNotContainKey("w-core");
            }
        }
    }

    @Test
    void replayedHeartbeatOlderThanTheTimeoutIsAckedAndDiscarded() throws Exception {
        try (SubstrateFixture worker = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            worker.transport.publish(OutboundMessage.of(Subjects.heartbeat("w-7"), BEAT)).get();
        }
        Thread.sleep(1200);
        Map<String, WorkerHeartbeat> seen = new ConcurrentHashMap<>();
        try (SubstrateFixture coordinator = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
                Consumption ignored = listener(coordinator, "coord-7", Duration.ofSeconds(1), seen)
                    .start(coordinator.containers, coordinator.consumer())) {
            await().atMost(Duration.ofSeconds(10))
                .until(() -> coordinator.metrics.count("varpulis.heartbeats.stale") >= 1);
            assertThat(seen).as("a stale heartbeat would mark a dead worker alive").doesNotContainKey("w-7");
            await().atMost(Duration.ofSeconds(5))
                .until(() -> coordinator.jsm()
                    .getConsumerInfo(VarpulisJetStream.HEARTBEAT_STREAM, DurableNames.heartbeatConsumer("coord-7"))
                    .getNumAckPending() == 0);
        }
    }

    private static HeartbeatListener listener(SubstrateFixture node, String coordinatorId, Duration timeout,
            Map<String, WorkerHeartbeat> seen) {
        // As the coordinator does before it consumes: the server's time, so that a replay
        // is measured against it.
        ServerClock serverClock = new ServerClock(Clock.systemUTC());
        if (node.substrate == Substrate.JETSTREAM) {
            try {
                serverClock.observe(node.jsm().getStreamInfo(VarpulisJetStream.HEARTBEAT_STREAM));
            }
            catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return new HeartbeatListener(coordinatorId, timeout, serverClock, node.codec.mapper(), (worker, beat, age) -> {
            seen.put(worker, beat);
            return true;
        }, node.metrics);
    }

}
