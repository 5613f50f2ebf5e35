package io.varpulis.cluster.coordinator;

import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.jetstream.eviction.EvictionSources;
import io.varpulis.jetstream.eviction.WatchedConsumer;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a coordinator watches for evictions (issue 43): the durable consumer of every
 * route edge of every declared group, placed or not (an edge whose pipeline runs nowhere
 * is the one whose events age out), each tagged with the pipeline that consumes it and
 * whether it is placed, and {@code VARPULIS_DLQ}. Every coordinator sees the same groups;
 * the ledger makes one of them count each eviction.
 */
public final class RouteEdgeEvictions implements EvictionSources {

    private final ClusterState state;

    /**
     * @param state the groups this coordinator knows
     */
    public RouteEdgeEvictions(ClusterState state) {
        this.state = state;
    }

    @Override
    public List<WatchedConsumer> consumers() {
        Set<String> placed = state.placement().keySet();
        List<WatchedConsumer> consumers = new ArrayList<>();
        for (PipelineGroupSpec group : state.groups()) {
            for (PipelineGroupSpec.PipelineSpec pipeline : group.pipelines()) {
                String key = group.name() + "/" + pipeline.name();
                // A partitioned pipeline's units are {group}/{pipeline}/{partition}.
                boolean runs = placed.stream().anyMatch(p -> p.equals(key) || p.startsWith(key + "/"));
                for (RouteEdge edge : group.consumedEdges(pipeline.name())) {
                    consumers.add(new WatchedConsumer(VarpulisJetStream.ROUTING_STREAM,
                            DurableNames.routeConsumer(edge.to(), edge.subject()), edge.subject(), edge.to(), runs));
                }
            }
        }
        return consumers;
    }

    @Override
    public Set<String> unconsumedStreams() {
        return Set.of(VarpulisJetStream.DLQ_STREAM);
    }

}
