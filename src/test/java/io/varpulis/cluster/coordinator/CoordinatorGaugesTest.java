package io.varpulis.cluster.coordinator;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.varpulis.cluster.protocol.Registration;
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
 * The gauges the chart's cluster alerts read: a pipeline (or partition) counts as
 * unplaced while no ready worker runs it.
 */
class CoordinatorGaugesTest {

    @Test
    void unplacedCountsEveryPartitionWithoutAReadyWorker_untilOneIsPlaced_andAgainWhenItsWorkerTimesOut() {
        MutableClock clock = new MutableClock();
        ClusterState state = new ClusterState(clock, clock::nanos, PlacementFilter.ANY);
        MeterRegistry registry = new SimpleMeterRegistry();
        new CoordinatorGauges(LeaderElection.solo("c1", "prod"), state).bindTo(registry);
        state.addGroup(new PipelineGroupSpec("g",
                List.of(new PipelineSpec("detect", new ProcessorSpec("passthrough", Map.of()), 3, "src_ip")),
                List.of(new RouteSpec("_external", "detect", null))));

        assertThat(unplaced(registry)).as("three partitions, no worker").isEqualTo(3);
        state.register(new Registration.Request("w1", "host:8080", null, new Registration.Capacity(4, 0, 32),
                "jetstream", null, null));
        state.place(new AtomicLong(1)::incrementAndGet);
        assertThat(unplaced(registry)).as("deploying counts as placed").isZero();

        clock.advance(Duration.ofSeconds(16));
        state.expire(0, LivenessVerdict.within(Duration.ofSeconds(15)));
        assertThat(unplaced(registry)).as("placed on a worker that is no longer ready").isEqualTo(3);
        assertThat(registry.get("varpulis.cluster.workers").tag("status", "unhealthy").gauge().value()).isEqualTo(1);
    }

    private static double unplaced(MeterRegistry registry) {
        return registry.get("varpulis.cluster.pipelines.unplaced")
            .tags("coordinator", "c1", "cluster", "prod")
            .gauge()
            .value();
    }

}
