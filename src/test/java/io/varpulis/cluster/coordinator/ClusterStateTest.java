package io.varpulis.cluster.coordinator;

import io.varpulis.cluster.TestGroups;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.PipelineGroupSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coordinator's bookkeeping, without a broker.
 */
class ClusterStateTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(15);

    /**
     * The coordinator reached NATS when the test's monotonic clock read 0, and was never
     * cut off.
     */
    private static final long REACHED_NATS_AT_START = 0;

    private final MutableClock clock = new MutableClock();

    private final ClusterState state = new ClusterState(clock, clock::nanos, PlacementFilter.ANY);

    private final AtomicLong epochs = new AtomicLong(100);

    @Test
    void workerThatRegistersAgainAfterBeingUnhealthyIsReadyUntilItsNextTimeout() {
        state.register(request("w1"));
        clock.advance(TIMEOUT.plusSeconds(1));
        assertThat(state.expire(REACHED_NATS_AT_START, LivenessVerdict.within(TIMEOUT))).containsExactly("w1");

        state.register(request("w1"));

        assertThat(state.expire(REACHED_NATS_AT_START, LivenessVerdict.within(TIMEOUT)))
            .as("a registration is a sign of life, like a heartbeat")
            .isEmpty();
        assertThat(state.worker("w1").orElseThrow().isReady()).isTrue();
        clock.advance(TIMEOUT.plusSeconds(1));
        assertThat(state.expire(REACHED_NATS_AT_START, LivenessVerdict.within(TIMEOUT))).containsExactly("w1");
    }

    @Test
    void workerIsUnhealthyOnlyAfterTheTimeoutWithoutAHeartbeat() {
        state.register(request("w1"));
        clock.advance(TIMEOUT.minusSeconds(1));
        state.heartbeat("w1", beat(0), Duration.ZERO);
        clock.advance(TIMEOUT.minusSeconds(1));

        assertThat(state.expire(REACHED_NATS_AT_START, LivenessVerdict.within(TIMEOUT))).isEmpty();
        clock.advance(Duration.ofSeconds(2));
        assertThat(state.expire(REACHED_NATS_AT_START, LivenessVerdict.within(TIMEOUT))).containsExactly("w1");
        assertThat(state.worker("w1").orElseThrow().status()).isEqualTo(WorkerRecord.UNHEALTHY);
    }

    @Test
    void replayedHeartbeatCountsFromWhenItWasSentNotWhenItWasApplied() {
        state.register(request("w1"));
        clock.advance(TIMEOUT.minusSeconds(1));
        state.heartbeat("w1", beat(0), TIMEOUT.minusSeconds(1));
        clock.advance(Duration.ofSeconds(2));

        assertThat(state.expire(REACHED_NATS_AT_START, LivenessVerdict.within(TIMEOUT)))
            .as("alive at the send time, not at the replay")
            .containsExactly("w1");
    }

    @Test
    void aWorkerSilentWhileTheCoordinatorWasCutOffGetsAFullTimeoutFromTheReconnection() {
        state.register(request("w1"));
        clock.advance(TIMEOUT.multipliedBy(3));
        long reconnected = clock.nanos();

        assertThat(state.expire(reconnected, LivenessVerdict.within(TIMEOUT)))
            .as("the outage is not the worker's silence")
            .isEmpty();
        clock.advance(TIMEOUT.minusSeconds(1));
        assertThat(state.expire(reconnected, LivenessVerdict.within(TIMEOUT))).isEmpty();
        clock.advance(Duration.ofSeconds(2));
        assertThat(state.expire(reconnected, LivenessVerdict.within(TIMEOUT))).containsExactly("w1");
    }

    @Test
    void aWorkersReportThatItCannotOpenAStateIsTheReasonShownUntilThePipelineRuns() {
        state.register(request("w1"));
        state.addGroup(TestGroups.threeStages("g"));
        Placement a = state.place(epochs::incrementAndGet).get("g/a");
        state.deployFailed("g/a", a, "no answer within 5000 ms");

        state.stateFailed("g/a", "w1", "cannot open state bucket varpulis_state_g_a: written meanwhile");

        assertThat(state.stateReason("g/a")).contains(
                "worker w1 cannot open its state: cannot open state bucket " + "varpulis_state_g_a: written meanwhile");
        Placement again = state.place(epochs::incrementAndGet).get("g/a");
        state.deployed("g/a", again);
        assertThat(state.stateReason("g/a")).as("it runs now").isEmpty();
    }

    @Test
    void capacityFollowsTheHeartbeatsPipelinesRunning() {
        state.register(request("w1"));

        state.heartbeat("w1", beat(3), Duration.ZERO);

        assertThat(state.worker("w1").orElseThrow().capacity().pipelinesRunning()).isEqualTo(3);
        assertThat(state.worker("w1").orElseThrow().capacity().maxPipelines()).isEqualTo(32);
    }

    @Test
    void aFailedDeployLeavesThePipelineUnplacedWithTheErrorAndTheNextRoundTriesAnotherWorker() {
        state.register(request("w1"));
        state.register(request("w2"));
        state.addGroup(TestGroups.threeStages("g"));
        Map<String, Placement> first = state.place(epochs::incrementAndGet);
        Placement a = first.get("g/a");
        assertThat(a.state()).isEqualTo(Placement.DEPLOYING);

        state.deployFailed("g/a", a, "no answer");

        assertThat(state.placement("g/a")).isEmpty();
        assertThat(state.failure("g/a").orElseThrow().error()).isEqualTo("no answer");
        Placement again = state.place(epochs::incrementAndGet).get("g/a");
        assertThat(again.worker()).as("the other worker").isNotEqualTo(a.worker());
        assertThat(again.epoch()).isGreaterThan(a.epoch());
        assertThat(state.deployed("g/a", again)).isTrue();
        assertThat(state.placement("g/a").orElseThrow().isRunning()).isTrue();
        assertThat(state.failure("g/a")).isEmpty();
    }

    @Test
    void aReportWithANewerEpochIsAdoptedAndOneWithAnOlderEpochRunsElsewhere() {
        state.register(request("w1"));
        state.register(request("w2"));
        state.addGroup(TestGroups.threeStages("g"));
        assertThat(state.reportRunning("g/a", "w1", 5)).isEqualTo(ClusterState.Report.ADOPTED);

        assertThat(state.reportRunning("g/a", "w2", 7)).as("a newer leader placed it on w2")
            .isEqualTo(ClusterState.Report.ADOPTED);
        assertThat(state.reportRunning("g/a", "w1", 5)).as("w1 still runs the older placement")
            .isEqualTo(ClusterState.Report.ELSEWHERE);
        assertThat(state.placement("g/a").orElseThrow().worker()).isEqualTo("w2");
        assertThat(state.reportRunning("g/x", "w1", 5)).isEqualTo(ClusterState.Report.UNKNOWN_GROUP);
    }

    @Test
    void rebalanceMovesOnePipelineOnlyWhenTheLoadDiffersByTwoAndTheTargetHasSettled() {
        state.register(request("w1"));
        state.addGroup(TestGroups.threeStages("g"));
        state.place(epochs::incrementAndGet).forEach(state::deployed);
        state.register(request("w2"));

        assertThat(state.rebalance(Duration.ofSeconds(30))).as("w2 has just joined").isEmpty();
        clock.advance(Duration.ofSeconds(31));
        var move = state.rebalance(Duration.ofSeconds(30)).orElseThrow();
        assertThat(move.getValue()).isEqualTo("w2");
        Placement moved = state.move(move.getKey(), "w2", epochs.incrementAndGet()).orElseThrow();
        assertThat(state.rebalance(Duration.ofSeconds(30))).as("a move still deploying").isEmpty();
        state.deployed(move.getKey(), moved);

        assertThat(state.rebalance(Duration.ofSeconds(30))).as("2 against 1: even enough, never flaps back").isEmpty();
        assertThat(state.pipelinesOf("w1")).hasSize(2);
        assertThat(state.pipelinesOf("w2")).hasSize(1);
    }

    @Test
    void aDeadWorkerIsForgottenAfterTheRetentionWithItsPlacements() {
        state.register(request("w1"));
        state.addGroup(TestGroups.threeStages("g"));
        state.place(epochs::incrementAndGet).forEach(state::deployed);
        clock.advance(TIMEOUT.plusSeconds(1));
        state.expire(REACHED_NATS_AT_START, LivenessVerdict.within(TIMEOUT));

        assertThat(state.forgetDead(Duration.ofMinutes(10))).isEmpty();
        clock.advance(Duration.ofMinutes(10).plusSeconds(1));
        assertThat(state.forgetDead(Duration.ofMinutes(10))).containsExactly("w1");
        assertThat(state.workers()).isEmpty();
        assertThat(state.placement()).isEmpty();
    }

    @Test
    void partitionsArePlacedOnTheirOwnSpreadOverWorkersAndMovedOnFailure() {
        state.register(request("w1"));
        state.register(request("w2"));
        state.register(request("w3"));
        // w1 already runs a pipeline: least-loaded alone would put two partitions on w2
        // and w3 only by chance.
        state.addGroup(TestGroups.threeStages("other"));
        state.place(epochs::incrementAndGet).forEach(state::deployed);
        state.addGroup(new PipelineGroupSpec("g",
                List.of(new PipelineSpec("detect", new ProcessorSpec("passthrough", Map.of()), 3, "src_ip")),
                List.of(new RouteSpec("_external", "detect", null))));

        Map<String, Placement> placed = state.place("g", epochs::incrementAndGet);

        assertThat(placed).containsOnlyKeys("g/detect/0", "g/detect/1", "g/detect/2");
        assertThat(placed.values().stream().map(Placement::worker).distinct()).as("one partition per worker")
            .hasSize(3);
        assertThat(placed.values().stream().map(Placement::epoch).distinct()).as("an epoch each").hasSize(3);
        placed.forEach(state::deployed);

        String victim = placed.get("g/detect/1").worker();
        clock.advance(TIMEOUT.plusSeconds(1));
        List.of("w1", "w2", "w3")
            .stream()
            .filter(w -> !w.equals(victim))
            .forEach(w -> state.heartbeat(w, beat(0), Duration.ZERO));
        assertThat(state.expire(REACHED_NATS_AT_START, LivenessVerdict.within(TIMEOUT))).containsExactly(victim);
        Map<String, Placement> moved = state.place(epochs::incrementAndGet);

        assertThat(moved).containsKey("g/detect/1").doesNotContainKeys("g/detect/0", "g/detect/2");
        assertThat(moved.get("g/detect/1").worker()).isNotEqualTo(victim);
        assertThat(moved.get("g/detect/1").epoch()).isGreaterThan(placed.get("g/detect/1").epoch());
        assertThat(state.reportRunning("g/detect/1", moved.get("g/detect/1").worker(), moved.get("g/detect/1").epoch()))
            .isEqualTo(ClusterState.Report.OWNED);
        assertThat(state.reportRunning("g/detect/7", "w1", 1)).isEqualTo(ClusterState.Report.UNKNOWN_GROUP);
    }

    private static WorkerHeartbeat beat(int pipelines) {
        return new WorkerHeartbeat(0, pipelines, List.of(), null);
    }

    private static Registration.Request request(String workerId) {
        return new Registration.Request(workerId, "host:8080", null, new Registration.Capacity(2, 0, 32), "jetstream",
                null, null);
    }

}
