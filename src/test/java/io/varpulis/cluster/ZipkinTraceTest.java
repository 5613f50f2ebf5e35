package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCredentials;
import io.varpulis.test.ZipkinServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 14, in a real tracing backend: a coordinator and two workers with tracing on export to Zipkin's own
 * server, and an event injected through the operator API with the caller's {@code traceparent} is one trace there,
 * queried through Zipkin's HTTP API: the API's server span (the child of the caller's), the inject's publish under it,
 * and for each pipeline it crossed (on both workers) its process span and the publish of its output, each the child
 * of the one before.
 */
@BrokerTest
class ZipkinTraceTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static ZipkinServer zipkin;
    private static ClusterNode coordinator;
    private static ClusterNode worker1;
    private static ClusterNode worker2;

    @BeforeAll
    static void startCluster() throws Exception {
        zipkin = ZipkinServer.start(Path.of("target", "zipkin-trace-test"));
        coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-traced", traced("coordinator"));
        var w1 = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats, "jetstream", "worker-1",
                traced("worker-1")));
        var w2 = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats, "jetstream", "worker-2",
                traced("worker-2")));
        worker1 = w1.join();
        worker2 = w2.join();
    }

    /** Spring Boot's own tracing settings, and ours. */
    private static String[] traced(String service) {
        return new String[]{"--varpulis.nats.observation-enabled=true",
                "--management.tracing.export.zipkin.enabled=true",
                "--management.tracing.sampling.probability=1.0",
                "--management.tracing.export.zipkin.endpoint=" + zipkin.spansEndpoint(),
                "--spring.application.name=" + service};
    }

    @AfterAll
    static void stopCluster() {
        for (AutoCloseable closeable : new AutoCloseable[]{coordinator, worker1, worker2, zipkin}) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void anEventInjectedWithTheCallersTraceparentIsOneTraceAcrossTheApiAndBothWorkers() throws Exception {
        // Both ready and heartbeating, so that least-loaded placement spreads the group over both.
        await().atMost(WAIT).until(() -> coordinator.coordinator().state().workers().stream()
                .filter(w -> w.isReady() && w.heartbeat() != null).count() == 2);
        assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("traced")).status())
                .isEqualTo(201);
        await().atMost(WAIT).until(() -> running("traced").equals(Set.of("a", "b", "c")));
        assertThat(new HashSet<>(coordinator.coordinator().placementOf("traced").values()))
                .containsExactlyInAnyOrder("worker-1", "worker-2");

        String traceId = hex(32);
        String callerSpanId = hex(16);
        HttpResponse<String> injected = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + ((WebServerApplicationContext) coordinator.context()).getWebServer()
                                .getPort() + "/api/v1/cluster/pipeline-groups/traced/inject"))
                .header("Content-Type", "application/json")
                .header("Authorization", TestCredentials.adminBasic())
                .header("traceparent", "00-" + traceId + "-" + callerSpanId + "-01")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("event_type", "Probe",
                        "fields", Map.of("n", 1))))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(injected.statusCode()).isEqualTo(202);

        List<JsonNode> spans = new ArrayList<>();
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1)).until(() -> {
            spans.clear();
            zipkin.trace(traceId).forEach(spans::add);
            return spans.stream().filter(s -> s.path("name").asText().startsWith("process ")).count() == 3
                    && spans.stream().filter(s -> s.path("name").asText().startsWith("send ")).count() == 3;
        });

        JsonNode api = one(spans, s -> "SERVER".equals(s.path("kind").asText())
                && s.path("localEndpoint").path("serviceName").asText().equals("coordinator"));
        assertThat(api.path("parentId").asText()).as("the API span continues the caller's").isEqualTo(callerSpanId);
        JsonNode inject = one(spans, s -> "PRODUCER".equals(s.path("kind").asText())
                && s.path("tags").path("messaging.nats.subject").asText().endsWith("._external.a"));
        assertThat(ancestors(spans, inject)).as("the inject's publish is under the API span (inside Spring "
                + "Security's observation of the request)").contains(api.path("id").asText());
        JsonNode parent = inject;
        Set<String> workers = new HashSet<>();
        for (String pipeline : List.of("a", "b", "c")) {
            JsonNode process = one(spans, s -> s.path("tags").path("messaging.consumer.group.name").asText()
                    .startsWith("route_" + pipeline + "__"));
            assertThat(process.path("parentId").asText()).as("process span of %s", pipeline)
                    .isEqualTo(parent.path("id").asText());
            assertThat(process.path("tags").path("varpulis.delivery.outcome").asText()).isEqualTo("acked");
            assertThat(process.path("kind").asText()).isEqualTo("CONSUMER");
            workers.add(process.path("localEndpoint").path("serviceName").asText());
            if (!pipeline.equals("c")) {
                JsonNode process1 = process;
                parent = one(spans, s -> s.path("name").asText().startsWith("send ")
                        && s.path("parentId").asText().equals(process1.path("id").asText()));
                assertThat(parent.path("kind").asText()).isEqualTo("PRODUCER");
                assertThat(parent.path("tags").path("messaging.destination.name").asText())
                        .isEqualTo("varpulis.cluster.pipeline.{group}.{from}.{to}");
            }
        }
        assertThat(workers).as("the trace crosses both workers").containsExactlyInAnyOrder("worker-1", "worker-2");
        assertThat(worker1.recorded("traced").size() + worker2.recorded("traced").size()).isEqualTo(1);
    }

    private static Set<String> running(String group) {
        Set<String> running = new HashSet<>();
        for (WorkerRecord worker : coordinator.coordinator().state().workers()) {
            if (worker.heartbeat() != null) {
                worker.heartbeat().pipelineMetrics().stream().filter(m -> group.equals(m.group()))
                        .forEach(m -> running.add(m.pipelineName()));
            }
        }
        return running;
    }

    /** The ids of a span's parent, its parent's parent, ... as far as the trace holds them. */
    private static List<String> ancestors(List<JsonNode> spans, JsonNode span) {
        List<String> ids = new ArrayList<>();
        String parentId = span.path("parentId").asText();
        while (!parentId.isEmpty() && !ids.contains(parentId)) {
            ids.add(parentId);
            String id = parentId;
            parentId = spans.stream().filter(s -> s.path("id").asText().equals(id)).findFirst()
                    .map(s -> s.path("parentId").asText()).orElse("");
        }
        return ids;
    }

    private static JsonNode one(List<JsonNode> spans, java.util.function.Predicate<JsonNode> which) {
        List<JsonNode> found = spans.stream().filter(which).toList();
        assertThat(found).as("exactly one such span in %s", spans).hasSize(1);
        return found.get(0);
    }

    private static String hex(int digits) {
        StringBuilder text = new StringBuilder();
        while (text.length() < digits) {
            text.append(Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE));
        }
        return text.substring(0, digits);
    }
}
