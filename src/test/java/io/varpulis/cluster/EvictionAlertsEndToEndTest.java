package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.PrometheusServer;
import io.varpulis.test.TestCredentials;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every exit counted, end to end (issue 43, SPEC sections 15 and 21): two coordinators
 * and no worker, {@code VARPULIS_ROUTING} with a 30 s max_age and {@code VARPULIS_DLQ}
 * with max_msgs 5, a real Prometheus scraping both every second with the chart's rules.
 * Events injected into a group whose pipeline is placed nowhere age out unconsumed: they
 * are counted once on the edge (the two coordinators' counters add up to what was
 * injected), named in an ERROR with their stream sequences, and
 * {@code VarpulisEventsEvicted} fires. Parked events beyond the DLQ's max_msgs are
 * discarded: counted, named, and {@code VarpulisParkedEventsDiscarded} fires.
 */
@BrokerTest
class EvictionAlertsEndToEndTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    // Kept when the test fails: the nodes' logs and Prometheus' say why.
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    private static final ObjectMapper JSON = new ObjectMapper();

    // Generous: the nodes share two loaded cores with other builds.
    private static final Duration WAIT = Duration.ofSeconds(300);

    private static final String GROUP = "evict";

    private static final int INJECTED = 20;

    private static final int DLQ_MAX_MSGS = 5;

    private static final int PARKED = 8;

    private final List<ClusterProcess> nodes = new ArrayList<>();

    @Test
    void eventsOfAnUnplacedEdge_andParkedEventsBeyondMaxMsgs_areCountedOnceNamedAndAlerted() throws Exception {
        String durable = DurableNames.routeConsumer("a", new RouteEdge(GROUP, Subjects.EXTERNAL, "a").subject());
        try (PrometheusServer prometheus = PrometheusServer.start(Files.createDirectories(dir.resolve("prometheus")),
                renderedRules(), "/actuator/prometheus", TestCredentials.USER, TestCredentials.PASSWORD);
                Connection client = Nats.connect(nats.url())) {
            List<ClusterProcess> coordinators = List.of(coordinator("evict-1"), coordinator("evict-2"));
            prometheus.scrape(nodes.stream().map(ClusterProcess::address).toList());
            for (ClusterProcess node : nodes) {
                await().atMost(WAIT)
                    .until(() -> node.get("/actuator/health/readiness").map(r -> r.status() == 200).orElse(false));
            }
            await().atMost(WAIT).until(prometheus::isReady);
            ClusterProcess leader = await().atMost(WAIT).until(() -> leaderAmong(coordinators), c -> c != null);
            assertThat(leader.post("/api/v1/cluster/pipeline-groups", JSON.writeValueAsString(group())).status())
                .isEqualTo(201);
            // Both counters at 0 in Prometheus before anything is evicted, so that
            // increase() sees the first.
            await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> prometheus.query("varpulis_events_evicted_total{consumer=\"" + durable + "\"} == 0")
                    .size() == 2
                        && prometheus
                            .query("varpulis_events_evicted_total{stream=\"" + VarpulisJetStream.DLQ_STREAM
                                    + "\"} == 0")
                            .size() == 2);

            for (int n = 0; n < INJECTED; n++) {
                assertThat(leader
                    .post("/api/v1/cluster/pipeline-groups/" + GROUP + "/inject",
                            "{\"event_type\": \"Probe\", \"fields\": {\"n\": " + n + "}}")
                    .status()).isEqualTo(202);
            }
            for (int n = 0; n < PARKED; n++) {
                client.jetStream()
                    .publish(DurableNames.dlqSubject("a"), ("{\"n\": " + n + "}").getBytes(StandardCharsets.UTF_8));
            }

            awaitFiring(prometheus, "VarpulisParkedEventsDiscarded");
            await().atMost(WAIT)
                .until(() -> sum(prometheus, "stream=\"" + VarpulisJetStream.DLQ_STREAM + "\"") == PARKED
                        - DLQ_MAX_MSGS);
            assertThat(logs()).containsPattern("stream VARPULIS_DLQ discarded exactly \\d parked event\\(s\\) at its "
                    + "max_msgs, stream sequences? [1-3]");

            awaitFiring(prometheus, "VarpulisEventsEvicted");
            await().atMost(WAIT).until(() -> sum(prometheus, "consumer=\"" + durable + "\"") == INJECTED);
            logs().lines()
                .filter(line -> line.contains("EvictionDetector"))
                .forEach(line -> System.out.println("evictions: " + line.substring(line.indexOf(" : ") + 3)));
            assertThat(logs())
                .containsPattern("stream VARPULIS_ROUTING dropped (exactly|at least) \\d+ event\\(s\\) of a "
                        + "\\(durable " + durable + "\\) before they were consumed, stream sequences? \\d+");
        }
        finally {
            nodes.forEach(ClusterProcess::close);
        }
    }

    /** The counter summed over the coordinators, as Prometheus last scraped it. */
    private static double sum(PrometheusServer prometheus, String selector) throws Exception {
        JsonNode result = prometheus.query("sum(varpulis_events_evicted_total{" + selector + "})");
        return result.isEmpty() ? -1 : result.get(0).path("value").get(1).asDouble();
    }

    private String logs() throws Exception {
        StringBuilder all = new StringBuilder();
        for (ClusterProcess node : nodes) {
            all.append(Files.readString(node.log()));
        }
        return all.toString();
    }

    /** The chart's PrometheusRule as a rule file. */
    private Path renderedRules() throws Exception {
        String rendered = new Helm(Path.of("helm/varpulis").toAbsolutePath()).template()
            .withName("varpulis")
            .set("monitoring.prometheusRule.enabled", "true")
            .call();
        Yaml yaml = new Yaml();
        for (Object document : yaml.loadAll(rendered)) {
            if (document instanceof Map<?, ?> object && "PrometheusRule".equals(object.get("kind"))) {
                Path rules = dir.resolve("rules.yaml");
                Files.writeString(rules, yaml.dump(object.get("spec")));
                return rules;
            }
        }
        throw new AssertionError("the chart rendered no PrometheusRule");
    }

    /** Pipeline a takes the injected events; no worker runs, so it is placed nowhere. */
    private static PipelineGroupSpec group() {
        return new PipelineGroupSpec(GROUP, List.of(new PipelineSpec("a", new ProcessorSpec("passthrough", Map.of()))),
                List.of(new RouteSpec(Subjects.EXTERNAL, "a", List.of("Probe"))));
    }

    private static ClusterProcess leaderAmong(List<ClusterProcess> coordinators) {
        for (ClusterProcess candidate : coordinators) {
            if (candidate.isAlive() && candidate.get("/api/v1/cluster/leader")
                .map(r -> r.body().path("this_node_leads").asBoolean())
                .orElse(false)) {
                return candidate;
            }
        }
        return null;
    }

    private static void awaitFiring(PrometheusServer prometheus, String alert) throws Exception {
        long from = System.nanoTime();
        try {
            await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> prometheus.alertStates(alert).contains("firing"));
        }
        catch (ConditionTimeoutException e) {
            throw new AssertionError(alert + " never fired; Prometheus' targets: " + prometheus.targets(), e);
        }
        System.out.printf("evictions: %s firing after %d ms%n", alert,
                Duration.ofNanos(System.nanoTime() - from).toMillis());
    }

    private ClusterProcess coordinator(String id) throws Exception {
        ClusterProcess node = ClusterProcess.start(id, dir,
                List.of("--varpulis.cluster.role=coordinator", "--varpulis.cluster.coordinator-id=" + id,
                        "--varpulis.nats.url=" + nats.url(), "--varpulis.nats.substrate=jetstream",
                        "--varpulis.nats.jetstream.routing.max-age=30s",
                        // The server refuses a duplicate window longer than max_age.
                        "--varpulis.nats.jetstream.routing.duplicate-window=30s",
                        "--varpulis.nats.jetstream.dlq.max-msgs=" + DLQ_MAX_MSGS,
                        "--varpulis.nats.jetstream.evictions.interval=2s", "--varpulis.cluster.heartbeat-interval=1s",
                        "--varpulis.cluster.heartbeat-timeout=8s"));
        nodes.add(node);
        return node;
    }

}
