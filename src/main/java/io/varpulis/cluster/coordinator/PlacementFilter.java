package io.varpulis.cluster.coordinator;

import io.varpulis.pipeline.PipelineGroupSpec;

/**
 * Which workers a pipeline may be placed on, beyond being ready and below their capacity
 * (SPEC section 17): the {@link ClusterState} asks it for every placement and every
 * rebalancing move. {@link PlacementGate} is the coordinator's.
 */
@FunctionalInterface
public interface PlacementFilter {

    /**
     * Every ready worker may take every pipeline (the bookkeeping's default, before a
     * coordinator sets its own).
     */
    PlacementFilter ANY = (workerId, pipeline) -> true;

    /**
     * @param workerId a ready worker
     * @param pipeline a pipeline to place
     * @return whether the pipeline may be placed there now
     */
    boolean allows(String workerId, PipelineGroupSpec.PipelineSpec pipeline);

}
