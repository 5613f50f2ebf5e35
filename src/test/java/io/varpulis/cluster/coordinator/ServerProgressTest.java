package io.varpulis.cluster.coordinator;

import io.nats.client.JetStreamSubscription;
import io.nats.client.KeyValue;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.KeyValueConfiguration;
import io.varpulis.cluster.TestGroups;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25, item 3, on a real server: what the server shows of a worker whose heartbeats
 * are late changes when the worker acks events of its pipelines' route consumers, and
 * when it renews its worker-id lease; the reads of one health check are bounded.
 */
@BrokerTest
class ServerProgressTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final AtomicLong monotonic = new AtomicLong();

    @Test
    void theCountersMoveWithTheWorkersAcksAndLeaseRenewalsAndAreEmptyForAnIdleUnknownWorker() throws Exception {
        try (SubstrateFixture coordinator = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            ClusterState state = new ClusterState(Clock.systemUTC());
            state.register(new Registration.Request("w1", "w1:8080", null, new Registration.Capacity(2, 0, 32),
                    "jetstream", null, null));
            state.addGroup(TestGroups.threeStages("g"));
            AtomicLong epochs = new AtomicLong();
            state.place(epochs::incrementAndGet);
            RouteEdge edge = new RouteEdge("g", "_external", "a");
            String durable = DurableNames.routeConsumer(edge.to(), edge.subject());
            var js = coordinator.connection.jetStream();
            JetStreamSubscription worker = js.subscribe(edge.subject(),
                    PullSubscribeOptions.builder()
                        .stream(VarpulisJetStream.ROUTING_STREAM)
                        .durable(durable)
                        .configuration(ConsumerConfiguration.builder().filterSubject(edge.subject()).build())
                        .build());
            ServerProgress progress = new ServerProgress(coordinator.jsm(), state, monotonic::get);

            assertThat(progress.of("w-unknown")).isEmpty();
            Map<String, Long> before = progress.of("w1");
            assertThat(before).containsKey(durable + " ack floor");

            js.publish(edge.subject(), "{}".getBytes(StandardCharsets.UTF_8));
            List<Message> fetched = worker.fetch(1, Duration.ofSeconds(5));
            assertThat(fetched).hasSize(1);
            assertThat(nextRound(progress, "w1")).as("delivered, not acked: the server moved, not the worker")
                .isEqualTo(before);
            fetched.get(0).ackSync(Duration.ofSeconds(5));
            assertThat(progress.of("w1")).as("read once per health check").isEqualTo(before);
            assertThat(nextRound(progress, "w1").get(durable + " ack floor"))
                .isGreaterThan(before.get(durable + " ack floor"));

            coordinator.connection.keyValueManagement()
                .create(KeyValueConfiguration.builder().name(ControlPlaneBuckets.WORKER_IDS).build());
            KeyValue leases = coordinator.connection.keyValue(ControlPlaneBuckets.WORKER_IDS);
            leases.put("w1", "{}");
            long leased = nextRound(progress, "w1").get("lease revision");
            leases.put("w1", "{}");
            assertThat(nextRound(progress, "w1").get("lease revision")).as("a renewal").isGreaterThan(leased);
        }
    }

    @Test
    void aRoundStopsReadingWhenItsBudgetIsSpentAndTheWorkersLeftOutAreReadFirstInTheNext() throws Exception {
        try (SubstrateFixture coordinator = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            coordinator.connection.keyValueManagement()
                .create(KeyValueConfiguration.builder().name(ControlPlaneBuckets.WORKER_IDS).build());
            KeyValue leases = coordinator.connection.keyValue(ControlPlaneBuckets.WORKER_IDS);
            leases.put("w1", "{}");
            leases.put("w2", "{}");
            ServerProgress progress = new ServerProgress(coordinator.jsm(), new ClusterState(Clock.systemUTC()),
                    monotonic::get);

            progress.beginRound();
            assertThat(progress.of("w1")).containsKey("lease revision");
            monotonic.addAndGet(Duration.ofMillis(ServerProgress.ROUND_BUDGET_MILLIS).toNanos());
            assertThat(progress.of("w2")).as("the round's budget is spent").isEmpty();

            assertThat(nextRound(progress, "w1")).as("w2 was left out: it goes first").isEmpty();
            assertThat(progress.of("w2")).containsKey("lease revision");

            assertThat(nextRound(progress, "w1")).containsKey("lease revision");
            assertThat(progress.of("w2")).as("nothing was left out last round: both are read").isNotEmpty();
        }
    }

    /**
     * One health check later: the last readings are out of date and a new round begins.
     */
    private Map<String, Long> nextRound(ServerProgress progress, String workerId) {
        monotonic.addAndGet(Duration.ofMillis(ServerProgress.CACHED_FOR_MILLIS).toNanos());
        progress.beginRound();
        return progress.of(workerId);
    }

}
