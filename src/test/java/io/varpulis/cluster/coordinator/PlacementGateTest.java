package io.varpulis.cluster.coordinator;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.cluster.protocol.WorkerCapabilities;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.PipelineGroupSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, item 2, without a broker: a pipeline goes only to a worker that said it can
 * run it, and a worker whose deploys fail is backed off exponentially instead of being
 * chosen again every round.
 */
class PlacementGateTest {

    private static final Duration BASE = Duration.ofSeconds(5);

    private static final List<String> OUR_TYPES = List.of("bean", "filter", "passthrough");

    private final MutableClock clock = new MutableClock();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final PlacementGate gate = new PlacementGate(clock, BASE, registry);

    private final ClusterState state = new ClusterState(clock, gate);

    private final AtomicLong epochs = new AtomicLong(1);

    @Test
    void aRustWorkerWithNoPipelinesGetsNoneOfOursNeitherPlacedNorRebalanced() {
        register(ours("jw1", OUR_TYPES));
        state.addGroup(group("g1", 4, "passthrough"));
        state.place(epochs::incrementAndGet).forEach((key, p) -> state.deployed(key, p));
        clock.advance(Duration.ofMinutes(1));

        register(rust("rw1"));
        clock.advance(Duration.ofMinutes(1));

        assertThat(state.pipelinesOf("jw1")).hasSize(4);
        assertThat(state.rebalance(Duration.ZERO)).as("4 pipelines against 0, but rw1 cannot run any").isEmpty();
        assertThat(gate.cannotRun("rw1", pipeline("p0", "passthrough")).orElseThrow())
            .contains("announced no capabilities", "Rust Varpulis worker runs VPL programs");
        state.deployFailed("g1/p0", state.placement("g1/p0").orElseThrow(), "worker jw1 died");
        assertThat(state.place(epochs::incrementAndGet)).as("the only capable worker, even after a failure")
            .containsOnlyKeys("g1/p0")
            .allSatisfy((key, p) -> assertThat(p.worker()).isEqualTo("jw1"));
    }

    @Test
    void aWorkerWithoutTheProcessorTypeIsNeverChosenAndTheRebalanceCountsOnlyCapableWorkers() {
        register(ours("jw1", OUR_TYPES));
        register(ours("jw2", List.of("passthrough")));
        state.addGroup(group("g1", 4, "filter"));

        assertThat(state.place(epochs::incrementAndGet).values()).extracting(Placement::worker).containsOnly("jw1");
        state.placement().keySet().forEach(key -> state.deployed(key, state.placement(key).orElseThrow()));
        clock.advance(Duration.ofMinutes(1));
        assertThat(state.rebalance(Duration.ZERO)).isEmpty();
        assertThat(gate.cannotRun("jw2", pipeline("p0", "filter")).orElseThrow()).contains("no processor type filter",
                "[passthrough]");
    }

    @Test
    void anOlderWorkerOfOursThatSaysNothingStillRunsPipelines() {
        register(new Registration.Request("old1", "h:1", "", new Registration.Capacity(2, 0, 32), "jetstream", null,
                null));
        state.addGroup(group("g1", 1, "filter"));

        assertThat(state.place(epochs::incrementAndGet).values()).extracting(Placement::worker).containsExactly("old1");
    }

    @Test
    void aWorkerWhoseDeploysFailIsBackedOffExponentiallyUpToTheCapAndASuccessEndsIt() {
        register(ours("jw1", OUR_TYPES));
        PipelineSpec p = pipeline("p0", "filter");

        assertThat(gate.deployFailed("jw1", "boom").until()).isEqualTo(clock.instant().plus(BASE));
        assertThat(gate.allows("jw1", p)).isFalse();
        clock.advance(BASE);
        assertThat(gate.allows("jw1", p)).isTrue();
        assertThat(gate.deployFailed("jw1", "boom").until()).isEqualTo(clock.instant().plus(BASE.multipliedBy(2)));
        assertThat(gate.deployFailed("jw1", "boom").until()).isEqualTo(clock.instant().plus(BASE.multipliedBy(4)));
        for (int i = 0; i < 30; i++) {
            gate.deployFailed("jw1", "bad request: missing field `name`");
        }
        assertThat(gate.backoff("jw1").orElseThrow().until())
            .isEqualTo(clock.instant().plus(PlacementGate.MAX_BACKOFF));
        assertThat(gate.view().get("jw1").get("backoff")).isInstanceOf(PlacementGate.Backoff.class);
        assertThat(registry.counter("varpulis.placement.backoffs", "worker", "jw1").count()).isEqualTo(33);
        assertThat(registry.get("varpulis.placement.workers.backed.off").gauge().value()).isEqualTo(1);

        gate.deployed("jw1");

        assertThat(gate.allows("jw1", p)).isTrue();
        assertThat(registry.get("varpulis.placement.workers.backed.off").gauge().value()).isZero();
    }

    @Test
    void aBackedOffWorkerIsPassedOverWhileAnotherCanTakeThePipeline() {
        register(ours("jw1", OUR_TYPES));
        register(ours("jw2", OUR_TYPES));
        state.addGroup(group("g1", 1, "filter"));
        gate.deployFailed("jw1", "boom");

        assertThat(state.place(epochs::incrementAndGet).values()).extracting(Placement::worker).containsExactly("jw2");
    }

    private void register(Registration.Request request) {
        gate.registered(request);
        state.register(request);
    }

    private static Registration.Request ours(String id, List<String> types) {
        return new Registration.Request(id, "h:1", "", new Registration.Capacity(2, 0, 32), "jetstream", null,
                WorkerCapabilities.of(types));
    }

    /**
     * The registration of a Rust Varpulis 0.11 worker: no substrate, cluster or
     * capabilities.
     */
    private static Registration.Request rust(String id) {
        return new Registration.Request(id, "", "", new Registration.Capacity(2, 0, 100), null, null, null);
    }

    private static PipelineSpec pipeline(String name, String type) {
        return new PipelineSpec(name, new ProcessorSpec(type, Map.of()));
    }

    private static PipelineGroupSpec group(String name, int pipelines, String type) {
        List<PipelineSpec> specs = new ArrayList<>();
        for (int i = 0; i < pipelines; i++) {
            specs.add(pipeline("p" + i, type));
        }
        return new PipelineGroupSpec(name, specs, List.of(new RouteSpec("_external", "p0", List.of("*"))));
    }

}
