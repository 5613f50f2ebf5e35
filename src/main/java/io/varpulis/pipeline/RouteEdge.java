package io.varpulis.pipeline;

import io.varpulis.nats.Subjects;

/**
 * A route edge of a pipeline group (ADR-007): events flow from one pipeline to another on
 * {@code varpulis.cluster.pipeline.{group}.{from}.{to}}, or, into one partition of a
 * partitioned pipeline, on
 * {@code varpulis.cluster.pipeline.{group}.{from}.{to}.{partition}} (SPEC section 11). On
 * JetStream each edge has one durable pull consumer per consuming pipeline.
 *
 * @param group the pipeline group
 * @param from the emitting pipeline, or {@code _external} for injected events
 * @param to the receiving pipeline
 * @param partition the receiving partition, or {@link Partitioning#NONE} for the
 * unpartitioned subject
 */
public record RouteEdge(String group, String from, String to, int partition) {

    /**
     * @throws IllegalArgumentException when a name is not a NATS token or the partition
     * is negative (but {@link Partitioning#NONE})
     */
    public RouteEdge {
        Subjects.token("group", group);
        Subjects.token("pipeline", from);
        Subjects.token("pipeline", to);
        if (partition < Partitioning.NONE) {
            throw new IllegalArgumentException("partition " + partition + " of " + to + " is negative");
        }
    }

    /**
     * The unpartitioned edge.
     * @param group the pipeline group
     * @param from the emitting pipeline, or {@code _external}
     * @param to the receiving pipeline
     */
    public RouteEdge(String group, String from, String to) {
        this(group, from, to, Partitioning.NONE);
    }

    /**
     * @param index a partition of {@code to}
     * @return the same edge into that partition
     */
    public RouteEdge partition(int index) {
        return new RouteEdge(group, from, to, index);
    }

    /**
     * @return whether the edge leads into one partition of its pipeline
     */
    public boolean isPartition() {
        return partition != Partitioning.NONE;
    }

    /**
     * @return {@code varpulis.cluster.pipeline.{group}.{from}.{to}}, with
     * {@code .{partition}} for a partition
     */
    public String subject() {
        String subject = Subjects.route(group, from, to);
        return isPartition() ? subject + "." + partition : subject;
    }

    /**
     * @return {@code {group}.{from}.{to}} (with {@code .{partition}}), the meter tag and
     * log name of the edge
     */
    public String name() {
        String name = group + "." + from + "." + to;
        return isPartition() ? name + "." + partition : name;
    }
}
