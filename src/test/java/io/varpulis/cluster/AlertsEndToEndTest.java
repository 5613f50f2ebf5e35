package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.varpulis.deploy.Dashboard;
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
 * The chart's alert rules and dashboard against a real Prometheus (Debian's package)
 * scraping real nodes on loopback every second (SPEC section 15): two coordinators and a
 * worker run as their own JVMs; the rules are the chart's PrometheusRule rendered with
 * {@code monitoring.prometheusRule.forOverride=2s}. A poison event fires
 * {@code VarpulisEventsParked} and {@code VarpulisDlqHoldsEvents}, which resolves once
 * the DLQ is purged; the worker killed with the pipelines on it fires
 * {@code VarpulisWorkerUnhealthy} and {@code VarpulisPipelineUnplaced}, which resolve
 * when it is back under its id; the leading coordinator killed fires
 * {@code VarpulisNoLeader}, which resolves when the other leads. Every panel of the
 * dashboard returns series from that Prometheus.
 */
@BrokerTest
class AlertsEndToEndTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    // Kept when the test fails: the nodes' logs and Prometheus' say why.
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    private static final ObjectMapper JSON = new ObjectMapper();

    // Generous: the nodes share two loaded cores with other builds (a JVM may take a
    // minute to start).
    private static final Duration WAIT = Duration.ofSeconds(300);

    private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(8);

    private static final Duration WORKER_LEASE_TTL = Duration.ofSeconds(10);

    private static final String GROUP = "alerts";

    /**
     * Long enough that the time without a leader after a kill outlasts the scrape, the
     * evaluation and "for".
     */
    private static final Duration LEADER_LEASE_TTL = Duration.ofSeconds(15);

    private final List<ClusterProcess> nodes = new ArrayList<>();

    @Test
    void aPoisonEvent_aKilledWorker_andAKilledLeader_eachFireTheirAlertAndResolve_andEveryPanelHasData()
            throws Exception {
        Path rules = renderedRules();
        try (PrometheusServer prometheus = PrometheusServer.start(Files.createDirectories(dir.resolve("prometheus")),
                rules, "/actuator/prometheus", TestCredentials.USER, TestCredentials.PASSWORD);
                Connection client = Nats.connect(nats.url())) {
            List<ClusterProcess> coordinators = List.of(coordinator("coord-1"), coordinator("coord-2"));
            worker("worker-1");
            prometheus.scrape(nodes.stream().map(ClusterProcess::address).toList());
            for (ClusterProcess node : nodes) {
                await().atMost(WAIT)
                    .until(() -> node.get("/actuator/health/readiness").map(r -> r.status() == 200).orElse(false));
            }
            await().atMost(WAIT).until(prometheus::isReady);
            ClusterProcess leader = await().atMost(WAIT).until(() -> leaderAmong(coordinators), c -> c != null);
            await().atMost(WAIT)
                .until(() -> leader.get("/api/v1/cluster/workers").map(r -> r.body().size() == 1).orElse(false));
            assertThat(leader.post("/api/v1/cluster/pipeline-groups", JSON.writeValueAsString(group())).status())
                .isEqualTo(201);
            await().atMost(WAIT).until(() -> placement(leader).size() == 2);
            for (int n = 0; n < 20; n++) {
                assertThat(leader
                    .post("/api/v1/cluster/pipeline-groups/" + GROUP + "/inject",
                            "{\"event_type\": \"Probe\", \"fields\": {\"n\": " + n + "}}")
                    .status()).isEqualTo(202);
            }

            // A counter's first increase is seen by rate() only from a sample before it:
            // the pipeline's parked
            // counters exist at 0 from its ingress's start, and Prometheus must have
            // scraped them so.
            await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> prometheus.query("varpulis_events_parked_total{unit=\"a\",reason=\"undecodable\"} == 0")
                    .size() > 0);
            client.jetStream()
                .publish(new RouteEdge(GROUP, Subjects.EXTERNAL, "a").subject(),
                        "not an event".getBytes(StandardCharsets.UTF_8));
            awaitFiring(prometheus, "VarpulisEventsParked");
            awaitFiring(prometheus, "VarpulisDlqHoldsEvents");

            await().atMost(WAIT).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                List<String> empty = new ArrayList<>();
                for (Map.Entry<String, String> panel : Dashboard.queries(Files.readString(Dashboard.FILE)).entrySet()) {
                    if (prometheus.query(Dashboard.asSent(panel.getValue(), "1m")).isEmpty()) {
                        empty.add(panel.getKey());
                    }
                }
                assertThat(empty).as("dashboard queries without series").isEmpty();
            });

            client.jetStreamManagement().purgeStream(VarpulisJetStream.DLQ_STREAM);
            awaitResolved(prometheus, "VarpulisDlqHoldsEvents");

            String host = placement(leader).get("a");
            ClusterProcess victim = nodes.stream().filter(n -> n.name().equals(host)).findFirst().orElseThrow();
            victim.kill();
            awaitFiring(prometheus, "VarpulisWorkerUnhealthy");
            awaitFiring(prometheus, "VarpulisPipelineUnplaced");
            nodes.remove(victim);
            worker(host);
            prometheus.scrape(nodes.stream().map(ClusterProcess::address).toList());
            awaitResolved(prometheus, "VarpulisWorkerUnhealthy");
            awaitResolved(prometheus, "VarpulisPipelineUnplaced");

            leader.kill();
            awaitFiring(prometheus, "VarpulisNoLeader");
            awaitResolved(prometheus, "VarpulisNoLeader");
            assertThat(leaderAmong(coordinators)).as("the other coordinator leads").isNotNull().isNotSameAs(leader);
        }
        finally {
            nodes.forEach(ClusterProcess::close);
        }
    }

    /** The chart's PrometheusRule, every "for" shortened to 2 s, as a rule file. */
    private Path renderedRules() throws Exception {
        String rendered = new Helm(Path.of("helm/varpulis").toAbsolutePath()).template()
            .withName("varpulis")
            .set("monitoring.prometheusRule.enabled", "true")
            .set("monitoring.prometheusRule.forOverride", "2s")
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

    private static PipelineGroupSpec group() {
        return new PipelineGroupSpec(GROUP,
                List.of(new PipelineSpec("a", new ProcessorSpec("passthrough", Map.of())),
                        new PipelineSpec("b", new ProcessorSpec("passthrough", Map.of()))),
                List.of(new RouteSpec(Subjects.EXTERNAL, "a", List.of("Probe")),
                        new RouteSpec("a", "b", List.of("*"))));
    }

    /**
     * @return pipeline -> worker, for the pipelines placed
     */
    private static Map<String, String> placement(ClusterProcess coordinator) {
        JsonNode placement = coordinator.get("/api/v1/cluster/pipeline-groups/" + GROUP)
            .map(r -> r.body().path("placement"))
            .orElse(JSON.nullNode());
        Map<String, String> placed = new java.util.TreeMap<>();
        placement.properties().forEach(e -> {
            if (e.getValue().isTextual()) {
                placed.put(e.getKey(), e.getValue().asText());
            }
        });
        return placed;
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
                .pollInterval(Duration.ofMillis(200))
                .until(() -> prometheus.alertStates(alert).contains("firing"));
        }
        catch (ConditionTimeoutException e) {
            throw new AssertionError(alert + " never fired; Prometheus' targets: " + prometheus.targets(), e);
        }
        System.out.printf("alerts: %s firing after %d ms%n", alert,
                Duration.ofNanos(System.nanoTime() - from).toMillis());
    }

    private static void awaitResolved(PrometheusServer prometheus, String alert) throws Exception {
        long from = System.nanoTime();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> prometheus.alertStates(alert).isEmpty());
        System.out.printf("alerts: %s resolved after %d ms%n", alert,
                Duration.ofNanos(System.nanoTime() - from).toMillis());
    }

    private ClusterProcess coordinator(String id) throws Exception {
        return node(id, "--varpulis.cluster.role=coordinator", "--varpulis.cluster.coordinator-id=" + id,
                "--varpulis.cluster.leader-lease-ttl=" + LEADER_LEASE_TTL.toMillis() + "ms",
                "--varpulis.cluster.rebalance-delay=1h");
    }

    private ClusterProcess worker(String id) throws Exception {
        return node(id, "--varpulis.cluster.role=worker", "--varpulis.cluster.worker-id=" + id,
                "--varpulis.cluster.registration-max-backoff=2s");
    }

    private ClusterProcess node(String name, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--varpulis.nats.url=" + nats.url(), "--varpulis.nats.substrate=jetstream",
                "--varpulis.cluster.heartbeat-interval=" + HEARTBEAT_INTERVAL.toMillis() + "ms",
                "--varpulis.cluster.heartbeat-timeout=" + HEARTBEAT_TIMEOUT.toMillis() + "ms",
                "--varpulis.cluster.worker-lease-ttl=" + WORKER_LEASE_TTL.toMillis() + "ms",
                "--varpulis.cluster.command-timeout=2s"));
        ClusterProcess node = ClusterProcess.start(name, dir, all);
        nodes.add(node);
        return node;
    }

}
