package io.varpulis.cluster.coordinator;

import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.jetstream.eviction.WatchedConsumer;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.RouteEdge;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A coordinator watches the durable of every route edge of every declared group, placed
 * or not, and the DLQ (issue 43).
 */
class RouteEdgeEvictionsTest {

    @Test
    void everyEdgeOfEveryGroupIsWatched_unplacedOnesAsRunNowhere_andTheDlq() {
        ClusterState state = new ClusterState(Clock.systemUTC());
        state.addGroup(new PipelineGroupSpec("g",
                List.of(new PipelineSpec("a", new ProcessorSpec("passthrough", Map.of())),
                        new PipelineSpec("b", new ProcessorSpec("passthrough", Map.of()))),
                List.of(new RouteSpec(Subjects.EXTERNAL, "a", List.of("*")), new RouteSpec("a", "b", List.of("*")))));

        RouteEdgeEvictions sources = new RouteEdgeEvictions(state);

        String external = new RouteEdge("g", Subjects.EXTERNAL, "a").subject();
        String ab = new RouteEdge("g", "a", "b").subject();
        assertThat(sources.consumers()).containsExactly(
                new WatchedConsumer(VarpulisJetStream.ROUTING_STREAM, DurableNames.routeConsumer("a", external),
                        external, "a", false),
                new WatchedConsumer(VarpulisJetStream.ROUTING_STREAM, DurableNames.routeConsumer("b", ab), ab, "b",
                        false));
        assertThat(sources.unconsumedStreams()).containsExactly(VarpulisJetStream.DLQ_STREAM);
    }

}
