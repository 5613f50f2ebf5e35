package io.varpulis.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.tracing.Tracer;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.impl.Headers;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 14: with {@code varpulis.nats.observation-enabled} off (the default) no
 * message a node writes carries a trace header, though the node has a tracer (Spring
 * Boot's Brave, from the node's Zipkin starter) and the API caller sends a
 * {@code traceparent}: registration, commands, routed events, heartbeats and JetStream's
 * own API calls, read raw by a plain jnats subscription on {@code >}.
 */
@BrokerTest
class ObservationOffTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** W3C's headers and B3's, single and multi. */
    private static final List<String> TRACE_HEADERS = List.of("traceparent", "tracestate", "baggage", "b3",
            "X-B3-TraceId", "X-B3-SpanId");

    @Test
    void withObservationOff_noMessageCarriesATraceHeader_evenWithATracerAndTheCallersTraceparent() throws Exception {
        Queue<Message> seen = new ConcurrentLinkedQueue<>();
        try (Connection raw = Nats.connect(nats.url())) {
            Dispatcher everything = raw.createDispatcher(seen::add);
            everything.subscribe(">");
            raw.flush(Duration.ofSeconds(5));
            try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-untraced");
                    ClusterNode worker = ClusterNode.worker(nats, "jetstream", "worker-untraced")) {
                assertThat(coordinator.context().getBeanProvider(Tracer.class).getIfAvailable())
                    .as("the node has a tracer: only the property keeps the headers out")
                    .isNotNull();
                await().atMost(WAIT)
                    .until(() -> coordinator.coordinator()
                        .workers()
                        .stream()
                        .anyMatch(w -> w.isReady() && w.heartbeat() != null));
                String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
                assertThat(post(coordinator, "/api/v1/cluster/pipeline-groups", TestGroups.threeStages("untraced"),
                        traceparent))
                    .isEqualTo(201);
                await().atMost(WAIT).until(() -> coordinator.coordinator().placementOf("untraced").size() == 3);
                assertThat(post(coordinator, "/api/v1/cluster/pipeline-groups/untraced/inject",
                        Map.of("event_type", "Probe", "fields", Map.of("n", 1)), traceparent))
                    .isEqualTo(202);
                await().atMost(WAIT).until(() -> worker.recorded("untraced").size() == 1);
            }
            raw.flush(Duration.ofSeconds(5));
        }
        assertThat(seen).extracting(Message::getSubject)
            .as("registration, commands, routed events, heartbeats")
            .contains("varpulis.cluster.register", "varpulis.cluster.cmd.worker-untraced.deploy",
                    "varpulis.cluster.pipeline.untraced._external.a", "varpulis.cluster.pipeline.untraced.b.c")
            .anyMatch(subject -> subject.startsWith("varpulis.cluster.heartbeat."));
        assertThat(seen).as("messages with a trace header").filteredOn(ObservationOffTest::traced).isEmpty();
    }

    private static boolean traced(Message message) {
        Headers headers = message.getHeaders();
        return headers != null && TRACE_HEADERS.stream().anyMatch(name -> headers.getFirst(name) != null);
    }

    private static int post(ClusterNode node, String path, Object body, String traceparent) throws Exception {
        int port = ((WebServerApplicationContext) node.context()).getWebServer().getPort();
        return HttpClient.newHttpClient()
            .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json")
                .header("Authorization", TestCredentials.adminBasic())
                .header("traceparent", traceparent)
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build(), HttpResponse.BodyHandlers.ofString())
            .statusCode();
    }

}
