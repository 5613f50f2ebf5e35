package io.varpulis.cluster.coordinator;

import io.varpulis.jetstream.DurableNames;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;
import io.varpulis.pipeline.RouteEdge;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The groups part of {@code GET /api/v1/cluster/topology}: every group with its placement
 * and route edges (subject, durable, and for an edge into a partitioned pipeline its
 * partitions).
 */
final class GroupTopology {

    private GroupTopology() {
    }

    /**
     * @param state the bookkeeping
     * @param placementOf a group's confirmed placement, {@code pipeline -> worker id}
     * @return every group:
     * {@code {"group", "placement", "edges": [{"from", "to", "event_types", "subject",
     * "durable"}]}}; an edge into a partitioned pipeline also lists
     * {@code "partition_key"} and {@code "partitions": [{"partition", "subject",
     * "durable", "worker"}]}, its {@code subject} and {@code durable} being the
     * repartitioner's (external publishers publish there)
     */
    static List<Map<String, Object>> of(ClusterState state, Function<String, Map<String, String>> placementOf) {
        return state.groups().stream().map(group -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("group", group.name());
            entry.put("placement", placementOf.apply(group.name()));
            entry.put("edges", group.routes().stream().map(r -> {
                RouteEdge edge = new RouteEdge(group.name(), r.fromPipeline(), r.toPipeline());
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("from", r.fromPipeline());
                e.put("to", r.toPipeline());
                e.put("event_types", r.eventTypes());
                e.put("subject", edge.subject());
                e.put("durable", DurableNames.routeConsumer(edge.to(), edge.subject()));
                group.pipeline(r.toPipeline()).flatMap(PipelineGroupSpec.PipelineSpec::partitioning).ifPresent(how -> {
                    e.put("partition_key", how.key());
                    e.put("partitions", partitionsOf(state, group.name(), edge, how.partitions()));
                });
                return e;
            }).toList());
            return entry;
        }).toList();
    }

    /**
     * One entry per partition of an edge into a partitioned pipeline: its subject,
     * durable and worker.
     */
    private static List<Map<String, Object>> partitionsOf(ClusterState state, String group, RouteEdge edge,
            int partitions) {
        List<Map<String, Object>> entries = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            RouteEdge into = edge.partition(p);
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("partition", p);
            entry.put("subject", into.subject());
            entry.put("durable", DurableNames.routeConsumer(into.to(), into.subject()));
            entry.put("worker",
                    state.placement(new PipelineUnit(group, edge.to(), p).key()).map(Placement::worker).orElse(null));
            entries.add(entry);
        }
        return entries;
    }

}
