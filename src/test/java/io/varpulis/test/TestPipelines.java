package io.varpulis.test;

import io.varpulis.delivery.DeployedPipeline;
import io.varpulis.delivery.OwnershipFence;
import io.varpulis.delivery.PauseDetector;
import io.varpulis.delivery.RouteEmitter;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.transport.ClusterTransport;

import java.util.List;
import java.util.Map;

/**
 * Pipelines and emitters built by hand, as a test wants them and as the worker's
 * {@code PipelineHost} never does: outside a placement (epoch 0), unpartitioned unless
 * said.
 */
public final class TestPipelines {

    private TestPipelines() {
    }

    /**
     * @param group the pipeline group
     * @param name the pipeline
     * @param processor its processor
     * @param state its state (owned by the caller, who closes it)
     * @return an unpartitioned pipeline outside a placement, fenced by its state
     */
    public static DeployedPipeline deployed(String group, String name, EventProcessor processor, KeyValueState state) {
        return deployed(group, name, processor, state, SubstrateMetrics.UNPARTITIONED, null);
    }

    /**
     * @param group the pipeline group
     * @param name the pipeline
     * @param processor its processor
     * @param state its state (owned by the caller, who closes it)
     * @param partitionTag the {@code partition} tag of its meters
     * @param partitioning how its events are spread over its partitions, {@code null}
     * when unpartitioned
     * @return a pipeline (or one partition) outside a placement, fenced by its state
     */
    public static DeployedPipeline deployed(String group, String name, EventProcessor processor, KeyValueState state,
            String partitionTag, Partitioning partitioning) {
        return new DeployedPipeline(group, name, processor, state, partitionTag, partitioning,
                new OwnershipFence(group + "/" + name, 0, state, PauseDetector.shared()));
    }

    /**
     * @param group the pipeline group
     * @param routes the routes out of the emitting pipeline
     * @param transport publishes
     * @param codec encodes events
     * @param metrics counts published events
     * @return an emitter into unpartitioned pipelines only, unfenced
     */
    public static RouteEmitter emitter(String group, List<PipelineGroupSpec.RouteSpec> routes,
            ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics) {
        return new RouteEmitter(group, routes, Map.of(), transport, codec, metrics);
    }

}
