package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.observation.Destinations;
import io.varpulis.observation.ObservedClusterTransport;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.ZipkinServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 14 (issue 23), in a real tracing backend: a coordinator and two worker
 * processes (their own JVMs, as an operator runs them) with tracing on through Spring
 * Boot's own settings ({@code management.tracing.*}) export to Zipkin's server, started
 * on a free loopback port, and each check reads Zipkin's HTTP API:
 * <ul>
 * <li>a group declared through the API with the caller's {@code traceparent}: its deploy
 * commands and the workers' handling of them are in the caller's trace; a worker's
 * registration is one trace across worker and coordinator;</li>
 * <li>an sshd line injected through the API with the caller's {@code traceparent} is one
 * trace: the API span, the inject's publish, and for each pipeline it crossed
 * ({@code parse}, {@code detect}, {@code alerts}, on both workers) its process span and
 * its output's publish, each the child of the one before, down to the alert's span;</li>
 * <li>a poison event's trace holds its five deliveries and its park; the parked event's
 * death envelope names that trace ({@code trace_id}), and its replay through the DLQ API
 * is sent under a span linked to the park's span.</li>
 * </ul>
 */
@BrokerTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ZipkinTraceTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    // Kept when a test fails, for the nodes' and Zipkin's logs.
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path dir;

    private static final Duration WAIT = Duration.ofSeconds(180);

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String GROUP = "traced";

    private static final String SSHD_FAILURE = "2026-12-02T10:00:00Z host sshd[4242]: Failed password for root from "
            + "10.0.0.9 port 50022 ssh2";

    private static ZipkinServer zipkin;

    private static ClusterProcess coordinator;

    private static final List<ClusterProcess> workers = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        zipkin = ZipkinServer.start(dir.resolve("zipkin"));
        coordinator = node("coordinator", "--varpulis.cluster.role=coordinator",
                "--varpulis.cluster.coordinator-id=coord-traced", "--varpulis.dlq.write-enabled=true");
        for (String id : List.of("worker-1", "worker-2")) {
            workers.add(node(id, "--varpulis.cluster.role=worker", "--varpulis.cluster.worker-id=" + id,
                    "--varpulis.cluster.registration-max-backoff=2s"));
        }
        await().atMost(WAIT)
            .until(() -> coordinator.get("/api/v1/cluster/leader")
                .map(r -> r.body().path("this_node_leads").asBoolean())
                .orElse(false));
        await().atMost(WAIT).until(() -> readyWorkers().size() == 2);
    }

    /**
     * A node with tracing on: Spring Boot's own properties, pointed at the test's Zipkin,
     * and ours.
     */
    private static ClusterProcess node(String name, String... role) throws Exception {
        List<String> args = new ArrayList<>(List.of(role));
        args.addAll(List.of("--varpulis.nats.url=" + nats.url(), "--varpulis.nats.substrate=jetstream",
                "--varpulis.nats.observation-enabled=true", "--management.tracing.sampling.probability=1.0",
                "--management.tracing.export.zipkin.enabled=true",
                "--management.tracing.export.zipkin.endpoint=" + zipkin.spansEndpoint(),
                "--spring.application.name=" + name, "--varpulis.demo.processors.enabled=true",
                "--varpulis.demo.processors.alert-dir=" + dir.resolve("alerts-" + name),
                "--varpulis.cluster.heartbeat-interval=1s", "--varpulis.cluster.heartbeat-timeout=8s",
                "--varpulis.cluster.worker-lease-ttl=10s", "--varpulis.cluster.command-timeout=10s",
                "--varpulis.cluster.rebalance-delay=1h", "--varpulis.nats.jetstream.consumer.nak-delay=200ms"));
        return ClusterProcess.start(name, dir, args);
    }

    @AfterAll
    static void stopCluster() {
        workers.forEach(ClusterProcess::close);
        if (coordinator != null) {
            coordinator.close();
        }
        if (zipkin != null) {
            zipkin.close();
        }
    }

    @Test
    @Order(1)
    void aDeployStartedByAnApiCallIsInThatCallsTrace_andARegistrationIsOneTraceAcrossWorkerAndCoordinator()
            throws Exception {
        String traceId = hex(32);
        String callerSpanId = hex(16);
        assertThat(coordinator
            .post("/api/v1/cluster/pipeline-groups", JSON.writeValueAsString(group()),
                    Map.of("traceparent", "00-" + traceId + "-" + callerSpanId + "-01"))
            .status()).isEqualTo(201);
        await().atMost(WAIT).until(() -> placement().size() == 3);
        assertThat(new HashSet<>(placement().values())).as("least-loaded placement uses both workers")
            .containsExactlyInAnyOrder("worker-1", "worker-2");

        String command = "send " + Destinations.COMMAND;
        List<JsonNode> spans = awaitTrace(traceId,
                s -> s.stream().filter(span -> name(span).equals("process " + Destinations.COMMAND)).count() >= 3);
        JsonNode api = one(spans, s -> "SERVER".equals(kind(s)) && service(s).equals("coordinator"));
        assertThat(api.path("parentId").asText()).as("the API span continues the caller's").isEqualTo(callerSpanId);
        Set<String> served = new HashSet<>();
        for (JsonNode deploy : spans.stream()
            .filter(s -> name(s).equals(command)
                    && s.path("tags").path("messaging.nats.subject").asText().endsWith(".deploy"))
            .toList()) {
            assertThat(ancestors(spans, deploy)).as("the deploy command is sent within the API call")
                .contains(api.path("id").asText());
            JsonNode handled = one(spans, s -> s.path("parentId").asText().equals(deploy.path("id").asText()));
            assertThat(name(handled)).isEqualTo("process " + Destinations.COMMAND);
            assertThat(kind(handled)).isEqualTo("CONSUMER");
            served.add(service(handled));
        }
        assertThat(served).as("both workers handled a deploy in the caller's trace")
            .containsExactlyInAnyOrder("worker-1", "worker-2");

        for (String worker : List.of("worker-1", "worker-2")) {
            // The one the coordinator answered (an attempt made before it listened has no
            // answer).
            List<JsonNode> registration = new ArrayList<>();
            for (JsonNode trace : zipkin.traces(worker, "send varpulis.cluster.register")) {
                List<JsonNode> candidate = new ArrayList<>();
                trace.forEach(candidate::add);
                if (candidate.stream().anyMatch(s -> name(s).equals("process varpulis.cluster.register"))) {
                    registration = candidate;
                }
            }
            assertThat(registration).as("%s's registration, answered, in a trace of its own", worker).isNotEmpty();
            JsonNode sent = one(registration, s -> name(s).equals("send varpulis.cluster.register"));
            JsonNode answered = one(registration, s -> name(s).equals("process varpulis.cluster.register"));
            assertThat(service(answered)).isEqualTo("coordinator");
            assertThat(answered.path("parentId").asText()).as("the coordinator continues the worker's trace")
                .isEqualTo(sent.path("id").asText());
        }
    }

    @Test
    @Order(2)
    void anEventInjectedWithTheCallersTraceparentIsOneTraceAcrossTheApiAndBothWorkersDownToItsAlert() throws Exception {
        await().atMost(WAIT).until(() -> placement().size() == 3);
        String traceId = hex(32);
        String callerSpanId = hex(16);
        assertThat(inject(Map.of("event_type", "SshLogLine", "fields", Map.of("line", SSHD_FAILURE)),
                "00-" + traceId + "-" + callerSpanId + "-01"))
            .isEqualTo(202);

        String process = "process " + Destinations.ROUTE;
        String send = "send " + Destinations.ROUTE;
        List<JsonNode> spans = awaitTrace(traceId,
                s -> s.stream().filter(span -> name(span).equals(process)).count() == 3
                        && s.stream().filter(span -> name(span).equals(send)).count() == 3);

        JsonNode api = one(spans, s -> "SERVER".equals(kind(s)) && service(s).equals("coordinator"));
        assertThat(api.path("parentId").asText()).as("the API span continues the caller's").isEqualTo(callerSpanId);
        JsonNode parent = one(spans, s -> name(s).equals(send)
                && s.path("tags").path("messaging.nats.subject").asText().endsWith("._external.parse"));
        assertThat(ancestors(spans, parent)).as("the inject's publish is under the API span")
            .contains(api.path("id").asText());
        Set<String> crossed = new HashSet<>();
        for (String pipeline : List.of("parse", "detect", "alerts")) {
            JsonNode from = parent;
            JsonNode processed = one(spans, s -> s.path("parentId").asText().equals(from.path("id").asText()));
            assertThat(name(processed)).as("the delivery to %s", pipeline).isEqualTo(process);
            assertThat(kind(processed)).isEqualTo("CONSUMER");
            assertThat(processed.path("tags").path("messaging.consumer.group.name").asText())
                .startsWith("route_" + pipeline + "__");
            assertThat(processed.path("tags").path("varpulis.delivery.outcome").asText()).isEqualTo("acked");
            assertThat(processed.path("tags").path("messaging.system").asText()).isEqualTo("nats");
            crossed.add(service(processed));
            if (!pipeline.equals("alerts")) {
                parent = one(spans,
                        s -> name(s).equals(send) && s.path("parentId").asText().equals(processed.path("id").asText()));
                assertThat(kind(parent)).isEqualTo("PRODUCER");
            }
        }
        assertThat(parent.path("tags").path("messaging.nats.subject").asText()).as("the alert's publish")
            .endsWith(".detect.alerts");
        assertThat(crossed).as("the trace crosses both workers").containsExactlyInAnyOrder("worker-1", "worker-2");
    }

    @Test
    @Order(3)
    void aPoisonEventsTraceHoldsItsFiveDeliveriesAndItsPark_itsEnvelopeNamesIt_andItsReplayIsLinkedToIt()
            throws Exception {
        await().atMost(WAIT).until(() -> placement().size() == 3);
        String traceId = hex(32);
        // alert-file cannot read the window's start: an apply failure every time, parked
        // after max_deliver.
        assertThat(inject(
                Map.of("event_type", "BruteForceSuspected", "fields",
                        Map.of("src_ip", "10.0.0.66", "window_start", "not a time", "failures", 5)),
                "00-" + traceId + "-" + hex(16) + "-01"))
            .isEqualTo(202);

        String park = "send " + Destinations.DLQ;
        // The park's span ends on the DLQ's PubAck, the last delivery's right after
        // (acked once parked): both are
        // reported, in either order.
        List<JsonNode> spans = awaitTrace(traceId, s -> s.stream().anyMatch(span -> name(span).equals(park))
                && s.stream().filter(span -> name(span).equals("process " + Destinations.ROUTE)).count() == 5);
        List<JsonNode> deliveries = spans.stream()
            .filter(s -> name(s).equals("process " + Destinations.ROUTE))
            .sorted((a, b) -> Long.compare(a.path("timestamp").asLong(), b.path("timestamp").asLong()))
            .toList();
        assertThat(deliveries).extracting(s -> s.path("tags").path("messaging.nats.delivery.attempt").asText())
            .containsExactly("1", "2", "3", "4", "5");
        assertThat(deliveries).extracting(s -> s.path("tags").path("varpulis.delivery.outcome").asText())
            .containsExactly("nak", "nak", "nak", "nak", "parked");
        assertThat(deliveries.get(4).path("tags").path("varpulis.delivery.park.reason").asText())
            .isEqualTo("max_deliver");
        JsonNode parked = one(spans, s -> name(s).equals(park));
        assertThat(parked.path("parentId").asText()).as("the park is the child of the last delivery")
            .isEqualTo(deliveries.get(4).path("id").asText());

        JsonNode event = await().atMost(WAIT).until(() -> parkedEvent(traceId), e -> e != null);
        assertThat(event.path("envelope").path("trace_id").asText()).as("the death envelope names the trace")
            .isEqualTo(traceId);
        assertThat(event.path("envelope").path("traceparent").asText()).as("and the park's span in it")
            .isEqualTo("00-" + traceId + "-" + parked.path("id").asText() + "-01");

        String replayTraceId = hex(32);
        assertThat(coordinator
            .post("/api/v1/cluster/dlq/replay",
                    JSON.writeValueAsString(Map.of("sequence", event.path("sequence").asLong())),
                    Map.of("traceparent", "00-" + replayTraceId + "-" + hex(16) + "-01"))
            .status()).isEqualTo(200);
        List<JsonNode> replay = awaitTrace(replayTraceId,
                s -> s.stream().anyMatch(span -> name(span).equals(ObservedClusterTransport.REPLAY_SPAN)));
        JsonNode linked = one(replay, s -> name(s).equals(ObservedClusterTransport.REPLAY_SPAN));
        assertThat(linked.path("tags").path("links[0].traceId").asText()).as("the replay links to the parked trace")
            .isEqualTo(traceId);
        assertThat(linked.path("tags").path("links[0].spanId").asText()).as("at the park's span")
            .isEqualTo(parked.path("id").asText());
        assertThat(linked.path("tags").path("varpulis.parked.trace.id").asText()).isEqualTo(traceId);
        JsonNode resent = one(replay, s -> name(s).equals("send " + Destinations.ROUTE)
                && s.path("parentId").asText().equals(linked.path("id").asText()));
        assertThat(resent.path("tags").path("varpulis.parked.trace.id").asText()).isEqualTo(traceId);
    }

    private static PipelineGroupSpec group() {
        return new PipelineGroupSpec(GROUP,
                List.of(new PipelineSpec("parse", new ProcessorSpec("sshd-parse", Map.of())),
                        new PipelineSpec("detect", new ProcessorSpec("brute-force", Map.of("threshold", 1))),
                        new PipelineSpec("alerts", new ProcessorSpec("alert-file", Map.of("path", "alerts.jsonl")))),
                List.of(new RouteSpec("_external", "parse", List.of("SshLogLine")),
                        new RouteSpec("parse", "detect", List.of("SshAuthFailure*")),
                        new RouteSpec("detect", "alerts", List.of("BruteForceSuspected")),
                        new RouteSpec("_external", "alerts", List.of("BruteForceSuspected"))));
    }

    private static int inject(Map<String, Object> event, String traceparent) throws Exception {
        return coordinator
            .post("/api/v1/cluster/pipeline-groups/" + GROUP + "/inject", JSON.writeValueAsString(event),
                    Map.of("traceparent", traceparent))
            .status();
    }

    /**
     * The parked event whose envelope names the trace, from the DLQ API, or {@code null}.
     */
    private static JsonNode parkedEvent(String traceId) {
        JsonNode page = coordinator.get("/api/v1/cluster/dlq?unit=alerts")
            .map(ClusterNode.Response::body)
            .orElse(JSON.nullNode());
        for (JsonNode event : page.path("events")) {
            if (event.path("envelope").path("traceparent").asText().contains(traceId)) {
                return event;
            }
        }
        return null;
    }

    private static List<JsonNode> awaitTrace(String traceId, Predicate<List<JsonNode>> complete) {
        List<JsonNode> spans = new ArrayList<>();
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1)).until(() -> {
            spans.clear();
            zipkin.trace(traceId).forEach(spans::add);
            return complete.test(spans);
        });
        return spans;
    }

    private static List<String> readyWorkers() {
        List<String> ready = new ArrayList<>();
        coordinator.get("/api/v1/cluster/workers").ifPresent(r -> r.body().forEach(entry -> {
            if ("ready".equals(entry.path("worker").path("status").asText())) {
                ready.add(entry.path("worker").path("worker_id").asText());
            }
        }));
        return ready;
    }

    /**
     * @return pipeline -> worker, for the pipelines placed and running
     */
    private static Map<String, String> placement() {
        Map<String, String> placed = new TreeMap<>();
        coordinator.get("/api/v1/cluster/pipeline-groups/" + GROUP)
            .map(r -> r.body().path("placement"))
            .ifPresent(p -> p.properties().forEach(e -> {
                if (e.getValue().isTextual()) {
                    placed.put(e.getKey(), e.getValue().asText());
                }
            }));
        return placed;
    }

    private static String name(JsonNode span) {
        return span.path("name").asText();
    }

    private static String kind(JsonNode span) {
        return span.path("kind").asText();
    }

    private static String service(JsonNode span) {
        return span.path("localEndpoint").path("serviceName").asText();
    }

    /**
     * The ids of a span's parent, its parent's parent, ... as far as the trace holds
     * them.
     */
    private static List<String> ancestors(List<JsonNode> spans, JsonNode span) {
        List<String> ids = new ArrayList<>();
        String parentId = span.path("parentId").asText();
        while (!parentId.isEmpty() && !ids.contains(parentId)) {
            ids.add(parentId);
            String id = parentId;
            parentId = spans.stream()
                .filter(s -> s.path("id").asText().equals(id))
                .findFirst()
                .map(s -> s.path("parentId").asText())
                .orElse("");
        }
        return ids;
    }

    private static JsonNode one(List<JsonNode> spans, Predicate<JsonNode> which) {
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
