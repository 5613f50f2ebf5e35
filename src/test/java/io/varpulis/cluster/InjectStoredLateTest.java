package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StreamInfoOptions;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An event injected during a NATS outage is answered 503 (its PubAck did not come within
 * the publish timeout), yet stored once NATS is back, from the client's reconnect buffer;
 * {@code varpulis.events.published} counts it when its late PubAck arrives (issue 15),
 * and a retry with the same {@code ?id=} is not counted again.
 */
@BrokerTest
class InjectStoredLateTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void anInjectionAnswered503ButStoredAfterTheOutageIsCountedOnce() throws Exception {
        PipelineGroupSpec group = new PipelineGroupSpec("late",
                List.of(new PipelineGroupSpec.PipelineSpec("sink",
                        new PipelineGroupSpec.ProcessorSpec("passthrough", Map.of()))),
                List.of(new PipelineGroupSpec.RouteSpec("_external", "sink", List.of("*"))));
        RouteEdge edge = new RouteEdge("late", "_external", "sink");
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-late",
                "--varpulis.nats.jetstream.publish-timeout=1s", "--varpulis.nats.reconnect-wait=200ms")) {
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", group).status()).isEqualTo(201);
            String event = "{\"event_type\": \"Probe\", \"fields\": {\"n\": 1}}";

            nats.stop();
            ClusterNode.Response during;
            try {
                during = coordinator.post("/api/v1/cluster/pipeline-groups/late/inject?id=outage-1", event);
            }
            finally {
                nats.start();
            }
            assertThat(during.status()).as(during.body().toString()).isEqualTo(503);

            await().atMost(Duration.ofSeconds(60)).until(() -> stored(edge) == 1);
            await().atMost(Duration.ofSeconds(30)).until(() -> published(coordinator, edge) == 1);
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups/late/inject?id=outage-1", event).status())
                .as("the client's retry")
                .isEqualTo(202);
            assertThat(stored(edge)).isEqualTo(1);
            assertThat(published(coordinator, edge)).as("stored once, counted once").isEqualTo(1);
        }
    }

    private static double published(ClusterNode node, RouteEdge edge) {
        return node.metrics().count("varpulis.events.published", "edge", edge.name());
    }

    private static long stored(RouteEdge edge) throws Exception {
        try (Connection connection = Nats.connect(nats.url())) {
            var subjects = connection.jetStreamManagement()
                .getStreamInfo(VarpulisJetStream.ROUTING_STREAM, StreamInfoOptions.filterSubjects(edge.subject()))
                .getStreamState()
                .getSubjects();
            return subjects == null ? 0 : subjects.stream().mapToLong(s -> s.getCount()).sum();
        }
    }

}
