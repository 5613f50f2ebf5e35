package io.varpulis.deploy;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.varpulis.deploy.Yamls.at;
import static io.varpulis.deploy.Yamls.listAt;
import static io.varpulis.deploy.Yamls.mapAt;
import static io.varpulis.deploy.Yamls.stringAt;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docker-compose.yml}, the laptop cluster, read as Compose reads it (YAML with
 * merge keys). No Docker engine runs here, so the test checks what
 * {@code docker compose up} would be given.
 */
class DockerComposeTest {

    private static final List<String> NODES = List.of("coordinator", "worker-1", "worker-2");

    private static Map<String, Object> services;

    @BeforeAll
    static void readComposeFile() throws Exception {
        services = mapAt(Yamls.parse(Files.readString(Path.of("docker-compose.yml"))), "services");
    }

    @Test
    void runsNatsOneCoordinatorAndTwoWorkers_andTheMainJobOnDemand() {
        assertThat(services).containsOnlyKeys("nats", "coordinator", "worker-1", "worker-2", "demo");
        Map<String, Object> demo = service("demo");
        assertThat(listAt(demo, "profiles")).containsExactly("demo");
        assertThat(listAt(demo, "command")).containsExactly("demo", "--nats-url", "nats://nats:4222", "--alerts-out",
                "/tmp/alerts.jsonl");
    }

    @Test
    void natsRunsJetStreamWithFileStorageInAVolumeAndMonitoring() throws Exception {
        Map<String, Object> nats = service("nats");

        assertThat(stringAt(nats, "image")).as("the release production runs, the same as helm/nats-values.yaml")
            .isEqualTo("nats:" + HelmChartTest.natsValuesImageTag())
            .startsWith("nats:2.12.");
        assertThat(listAt(nats, "command")).containsExactly("-js", "-sd", "/data", "-m", "8222");
        assertThat(listAt(nats, "volumes")).containsExactly("nats-data:/data");
        assertThat(stringAt(nats, "healthcheck", "test", 1)).as("a tool the alpine image has").isEqualTo("wget");
        assertThat(listAt(nats, "healthcheck", "test")).contains("http://127.0.0.1:8222/healthz?js-enabled-only=true");
    }

    @Test
    void everyNodeIsOnJetStreamAgainstTheNatsService() {
        for (String node : NODES) {
            Map<String, Object> environment = environment(node);
            assertThat(environment).containsEntry("VARPULIS_NATS_SUBSTRATE", "jetstream");
            assertThat(services).containsKey(URI.create((String) environment.get("VARPULIS_NATS_URL")).getHost());
            assertThat(environment).as("single NATS server").containsEntry("VARPULIS_NATS_JETSTREAM_REPLICAS", "1");
        }
    }

    @Test
    void theCoordinatorHasAStableIdAndEachWorkerItsOwn() {
        assertThat(environment("coordinator")).containsEntry("VARPULIS_CLUSTER_ROLE", "coordinator")
            .containsEntry("VARPULIS_COORDINATOR_ID", "coordinator-1");
        assertThat(environment("worker-1")).containsEntry("VARPULIS_CLUSTER_ROLE", "worker")
            .containsEntry("VARPULIS_WORKER_ID", "worker-1");
        assertThat(environment("worker-2")).containsEntry("VARPULIS_CLUSTER_ROLE", "worker")
            .containsEntry("VARPULIS_WORKER_ID", "worker-2");
    }

    @Test
    void nodesAreBuiltFromTheDockerfileAndStartOnceNatsIsHealthy() {
        for (String node : NODES) {
            Map<String, Object> service = service(node);
            assertThat(service).containsEntry("build", ".").containsEntry("restart", "unless-stopped");
            assertThat(at(service, "depends_on", "nats", "condition")).isEqualTo("service_healthy");
        }
        assertThat(service("nats")).containsKey("healthcheck");
    }

    @Test
    void nodesAreHealthyWhenSpringBootSaysTheyAreReady() {
        for (String node : NODES) {
            List<Object> test = listAt(service(node), "healthcheck", "test");
            assertThat(test).startsWith("CMD", "curl").endsWith("http://127.0.0.1:8080/actuator/health/readiness");
        }
    }

    @Test
    void theStopGracePeriodLeavesTimeForTheDrain() {
        for (String node : NODES) {
            Duration grace = Duration.parse("PT" + stringAt(service(node), "stop_grace_period").toUpperCase());
            Duration drain = Duration
                .parse("PT" + environment(node).get("VARPULIS_CLUSTER_DRAINTIMEOUT").toString().toUpperCase());
            assertThat(grace).isGreaterThan(drain);
        }
    }

    @Test
    void everyPublishedPortIsBoundToLoopbackOnly() {
        for (String name : services.keySet()) {
            Object ports = Yamls.asMap(services.get(name), name).get("ports");
            if (ports != null) {
                assertThat(Yamls.asList(ports, name + "/ports"))
                    .as("%s: no authentication or TLS here, so nothing may listen beyond 127.0.0.1", name)
                    .allSatisfy(port -> assertThat(port).asString().startsWith("127.0.0.1:"));
            }
        }
        assertThat(listAt(service("coordinator"), "ports")).contains("127.0.0.1:8080:8080");
        assertThat(listAt(service("nats"), "ports")).contains("127.0.0.1:4222:4222", "127.0.0.1:8222:8222");
    }

    private static Map<String, Object> service(String name) {
        return mapAt(services, name);
    }

    private static Map<String, Object> environment(String name) {
        return mapAt(services, name, "environment");
    }

}
