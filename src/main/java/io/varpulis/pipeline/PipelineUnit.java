package io.varpulis.pipeline;

import io.varpulis.metrics.SubstrateMetrics;

import java.util.ArrayList;
import java.util.List;

/**
 * One placement unit (SPEC section 11): an unpartitioned pipeline, or one partition of a
 * partitioned one. Each is placed on its own, with its own placement epoch, durable
 * consumers and state. Its key is {@code group/pipeline}, or
 * {@code group/pipeline/partition} for a partition (names are NATS tokens, so {@code /}
 * never occurs in them).
 *
 * @param group the pipeline group
 * @param pipeline the pipeline
 * @param partition the partition, or {@link Partitioning#NONE}
 */
public record PipelineUnit(String group, String pipeline, int partition) {

    /**
     * @param key {@code group/pipeline} or {@code group/pipeline/partition}
     * @return the unit
     * @throws IllegalArgumentException when the key has another shape
     */
    public static PipelineUnit parse(String key) {
        String[] parts = key.split("/");
        try {
            if (parts.length == 2) {
                return new PipelineUnit(parts[0], parts[1], Partitioning.NONE);
            }
            if (parts.length == 3) {
                return new PipelineUnit(parts[0], parts[1], Integer.parseInt(parts[2]));
            }
        }
        catch (NumberFormatException e) {
            // Reported below.
        }
        throw new IllegalArgumentException("'" + key + "' is not group/pipeline or group/pipeline/partition");
    }

    /**
     * @param group a group
     * @return its units, pipeline by pipeline, partitions in order
     */
    public static List<PipelineUnit> of(PipelineGroupSpec group) {
        List<PipelineUnit> units = new ArrayList<>();
        for (PipelineGroupSpec.PipelineSpec pipeline : group.pipelines()) {
            if (pipeline.isPartitioned()) {
                for (int p = 0; p < pipeline.partitions(); p++) {
                    units.add(new PipelineUnit(group.name(), pipeline.name(), p));
                }
            }
            else {
                units.add(new PipelineUnit(group.name(), pipeline.name(), Partitioning.NONE));
            }
        }
        return units;
    }

    /**
     * @return {@code group/pipeline}, or {@code group/pipeline/partition}
     */
    public String key() {
        return group + "/" + name();
    }

    /**
     * @return {@code pipeline}, or {@code pipeline/partition}: the unit's name within its
     * group (placement maps)
     */
    public String name() {
        return partition == Partitioning.NONE ? pipeline : pipeline + "/" + partition;
    }

    /**
     * @return the partition as JSON carries it: {@code null} for an unpartitioned
     * pipeline (left out)
     */
    public Integer partitionOrNull() {
        return partition == Partitioning.NONE ? null : partition;
    }

    /**
     * @return the meter tag {@code partition}: the index, or
     * {@value SubstrateMetrics#UNPARTITIONED}
     */
    public String partitionTag() {
        return partition == Partitioning.NONE ? SubstrateMetrics.UNPARTITIONED : Integer.toString(partition);
    }
}
