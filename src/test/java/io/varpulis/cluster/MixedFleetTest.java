package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.varpulis.cluster.coordinator.UnregisteredWorkers;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 26 on a real broker, with a peer that speaks exactly what a Rust Varpulis 0.11
 * node puts on the wire (its registration, heartbeats and command replies, from its
 * source): it gets none of our pipelines and nothing moves; after our coordinator
 * restarts it is admitted again from its heartbeats (without capabilities), or, with an
 * api-key, listed with the reason, its heartbeats counted apart; a refusal is in the
 * shape it reads; our worker registers with a Rust-shaped coordinator and answers its
 * commands with the difference. {@code scripts/interop-rust.sh} runs the same against the
 * real binary.
 */
@BrokerTest
class MixedFleetTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aRustWorkerBesideOursGetsNoPipelineNothingMovesAndNoEventIsLost() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats.url(), "jetstream", "coord-mixed",
                "--varpulis.cluster.rebalance-delay=500ms");
                ClusterNode jw1 = ClusterNode.worker(nats, "jetstream", "jw1");
                ClusterNode jw2 = ClusterNode.worker(nats, "jetstream", "jw2")) {
            await().atMost(WAIT).until(() -> jw1.worker().isRegistered() && jw2.worker().isRegistered());
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("mixed")).status())
                .isEqualTo(201);
            await().atMost(WAIT).until(() -> coordinator.coordinator().placementOf("mixed").size() == 3);
            Map<String, String> settled = coordinator.coordinator().placementOf("mixed");

            try (RustPeer rust = RustPeer.worker(nats.url(), "rw1", "")) {
                assertThat(rust.register().path("status").asText()).isEqualTo("registered");
                ThrowingRunnable unmoved = () -> assertThat(coordinator.coordinator().placementOf("mixed"))
                    .as("no move, no flapping")
                    .isEqualTo(settled);
                await().during(ClusterNode.HEARTBEAT_INTERVAL.multipliedBy(10))
                    .atMost(ClusterNode.HEARTBEAT_INTERVAL.multipliedBy(14))
                    .failFast(unmoved)
                    .untilAsserted(unmoved);
                for (int n : IntStream.rangeClosed(1, 20).toArray()) {
                    assertThat(coordinator
                        .post("/api/v1/cluster/pipeline-groups/mixed/inject",
                                Map.of("event_type", "Probe", "fields", Map.of("n", n)))
                        .status()).isEqualTo(202);
                }
                ClusterNode last = settled.get("c").equals("jw1") ? jw1 : jw2;
                await().atMost(WAIT).until(() -> TestGroups.numbers(last.recorded("mixed")).size() == 20);

                assertThat(rust.commands()).as("no deploy ever reached the Rust worker").doesNotContain("deploy");
                assertThat(coordinator.coordinator().placementOf("mixed")).isEqualTo(settled);
                JsonNode gate = coordinator.get("/api/v1/cluster/topology").body().path("placement_gate");
                assertThat(gate.path("rw1").path("capabilities").isNull()).isTrue();
                assertThat(gate.path("jw1").path("capabilities").path("processor_types").toString())
                    .contains("passthrough", "filter", "bean");
            }
        }
    }

    @Test
    void afterOurCoordinatorRestartsTheRustWorkerIsAdmittedFromItsHeartbeatsWithNoPipelineOnIt() throws Exception {
        try (RustPeer rust = RustPeer.worker(nats.url(), "rw2", "")) {
            try (ClusterNode first = ClusterNode.coordinator(nats, "jetstream", "coord-restart")) {
                await().atMost(WAIT).until(() -> rust.register().path("status").asText().equals("registered"));
                await().atMost(WAIT).until(() -> first.coordinator().worker("rw2").isPresent());
            }
            try (ClusterNode second = ClusterNode.coordinator(nats, "jetstream", "coord-restart")) {
                await().atMost(WAIT).until(() -> second.coordinator().worker("rw2").isPresent());

                assertThat(rust.commands()).as("asked first; it cannot register again by itself").contains("register");
                assertThat(second.coordinator().unregisteredWorkers()).isEmpty();
                JsonNode gate = second.get("/api/v1/cluster/topology").body().path("placement_gate");
                assertThat(gate.path("rw2").path("capabilities").isNull()).as("no pipeline placed on it").isTrue();
                assertThat(second.metrics().registry().counter("varpulis.heartbeats.unknown").count())
                    .as("counted apart until it was admitted")
                    .isPositive();
            }
        }
    }

    @Test
    void withAnApiKeyTheRustWorkerIsNotAdmittedFromItsHeartbeatsAndIsListedWithTheReason() throws Exception {
        try (RustPeer rust = RustPeer.worker(nats.url(), "rw4", "the-key")) {
            try (ClusterNode first = ClusterNode.coordinator(nats, "jetstream", "coord-restart-keyed",
                    "--varpulis.cluster.api-key=the-key")) {
                await().atMost(WAIT).until(() -> rust.register().path("status").asText().equals("registered"));
                await().atMost(WAIT).until(() -> first.coordinator().worker("rw4").isPresent());
            }
            try (ClusterNode second = ClusterNode.coordinator(nats, "jetstream", "coord-restart-keyed",
                    "--varpulis.cluster.api-key=the-key")) {
                await().atMost(WAIT).untilAsserted(() -> {
                    JsonNode workers = second.get("/api/v1/cluster/workers").body();
                    JsonNode listed = workers.findParent("worker_id");
                    assertThat(listed).as("workers: %s", workers).isNotNull();
                    assertThat(listed.path("worker_id").asText()).isEqualTo("rw4");
                    assertThat(listed.path("status").asText()).isEqualTo(UnregisteredWorkers.STATUS);
                    assertThat(listed.path("reason").asText()).contains("does not know the register command",
                            "unknown command: register", "api-key", "restart it");
                });
                assertThat(second.metrics().registry().counter("varpulis.heartbeats.unknown").count()).isPositive();
                assertThat(second.coordinator().workers()).isEmpty();
            }
        }
    }

    @Test
    void aRefusedRustWorkerGetsAReplyItCannotTakeForAnAcceptanceWithTheReasonInIt() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats.url(), "jetstream", "coord-keyed",
                "--varpulis.cluster.api-key=the-right-key");
                RustPeer rust = RustPeer.worker(nats.url(), "rw3", "a-wrong-key")) {
            JsonNode reply = await().atMost(WAIT).until(rust::register, r -> r.has("status"));

            assertThat(reply.path("worker_id").asText()).isEqualTo("rw3");
            assertThat(reply.path("status").asText()).isEqualTo("refused");
            assertThat(reply.path("error").asText()).contains("invalid api_key");
            assertThat(reply.path("heartbeat_interval_secs").asText()).startsWith("refused: invalid api_key");
            assertThat(coordinator.coordinator().workers()).isEmpty();
        }
    }

    @Test
    void ourWorkerRegistersWithARustCoordinatorAndAnswersItsCommandsWithTheDifference() throws Exception {
        try (RustPeer rustCoordinator = RustPeer.coordinator(nats.url());
                ClusterNode worker = ClusterNode.worker(nats, "core", "jw-under-rust")) {
            await().atMost(WAIT).until(() -> worker.worker().isRegistered());
            JsonNode registration = rustCoordinator.registrations().get(0);
            assertThat(registration.has("api_key")).as("a Rust coordinator requires the field").isTrue();
            assertThat(registration.path("api_key").asText()).isEmpty();
            await().atMost(WAIT).until(() -> !rustCoordinator.heartbeats().isEmpty());
            assertThat(rustCoordinator.heartbeats().get(0).has("pipelines_running")).isTrue();

            JsonNode deploy = rustCoordinator.command("jw-under-rust", "deploy",
                    "{\"name\":\"p1\",\"source\":\"stream A = Sensor .where(temperature > 100)\"}");
            JsonNode batch = rustCoordinator.command("jw-under-rust", "inject_batch", "{\"events_text\":\"\"}");

            assertThat(deploy.isTextual()).as("a string: the Rust coordinator's reading of it quotes it").isTrue();
            assertThat(deploy.asText())
                .startsWith("refused: deploy of a VPL program (pipeline p1): this worker " + "runs processor types [");
            assertThat(batch.path("error").asText()).isEqualTo("unknown command: inject_batch; this worker supports "
                    + "deploy, undeploy, inject, drain, register");
        }
    }

    /**
     * A peer on a plain connection that puts on the wire what a Rust Varpulis 0.11 worker
     * or coordinator does (varpulis-cluster 0.11.0: {@code RegisterWorkerRequest},
     * {@code HeartbeatRequest}, the worker's command dispatcher's replies).
     */
    private static final class RustPeer implements AutoCloseable {

        private final Connection connection;

        private final String workerId;

        private final String apiKey;

        private final List<String> commands = new CopyOnWriteArrayList<>();

        private final List<JsonNode> registrations = new CopyOnWriteArrayList<>();

        private final List<JsonNode> heartbeats = new CopyOnWriteArrayList<>();

        private final ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();

        private RustPeer(Connection connection, String workerId, String apiKey) {
            this.connection = connection;
            this.workerId = workerId;
            this.apiKey = apiKey;
        }

        /**
         * A worker: answers its commands as the Rust dispatcher does, heartbeats every
         * test interval.
         */
        static RustPeer worker(String url, String workerId, String apiKey) throws Exception {
            RustPeer peer = new RustPeer(Nats.connect(url), workerId, apiKey);
            Dispatcher dispatcher = peer.connection.createDispatcher(peer::onCommand);
            dispatcher.subscribe("varpulis.cluster.cmd." + workerId + ".>");
            long every = ClusterNode.HEARTBEAT_INTERVAL.toMillis();
            peer.beats.scheduleAtFixedRate(peer::heartbeat, every, every, TimeUnit.MILLISECONDS);
            return peer;
        }

        /**
         * A coordinator: accepts every registration as the Rust one does, records the
         * heartbeats.
         */
        static RustPeer coordinator(String url) throws Exception {
            RustPeer peer = new RustPeer(Nats.connect(url), null, null);
            Dispatcher dispatcher = peer.connection.createDispatcher(peer::onCoordinatorMessage);
            dispatcher.subscribe("varpulis.cluster.register");
            dispatcher.subscribe("varpulis.cluster.heartbeat.>");
            return peer;
        }

        JsonNode register() throws Exception {
            String request = JSON.writeValueAsString(Map.of("worker_id", workerId, "address", "", "api_key", apiKey,
                    "capacity", Map.of("cpu_cores", 2, "pipelines_running", 0, "max_pipelines", 100)));
            Message reply = connection.request("varpulis.cluster.register", request.getBytes(StandardCharsets.UTF_8),
                    Duration.ofSeconds(5));
            return reply == null || reply.isStatusMessage() ? JSON.createObjectNode() : JSON.readTree(reply.getData());
        }

        void heartbeat() {
            connection.publish("varpulis.cluster.heartbeat." + workerId,
                    "{\"events_processed\":0,\"pipelines_running\":0,\"pipeline_metrics\":[]}"
                        .getBytes(StandardCharsets.UTF_8));
        }

        JsonNode command(String worker, String command, String body) throws Exception {
            Message reply = connection.request("varpulis.cluster.cmd." + worker + "." + command,
                    body.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
            return JSON.readTree(reply.getData());
        }

        List<String> commands() {
            return commands;
        }

        List<JsonNode> registrations() {
            return registrations;
        }

        List<JsonNode> heartbeats() {
            return heartbeats;
        }

        private void onCommand(Message message) {
            String command = message.getSubject().substring(message.getSubject().lastIndexOf('.') + 1);
            commands.add(command);
            String reply = switch (command) {
                case "deploy" -> "{\"error\":\"bad request: missing field `name` at line 1 column 500\"}";
                case "undeploy", "inject", "inject_batch", "checkpoint", "restore", "drain" ->
                    "{\"error\":\"bad request: missing field `pipeline_id`\"}";
                default -> "{\"error\":\"unknown command: " + command + "\"}";
            };
            connection.publish(message.getReplyTo(), reply.getBytes(StandardCharsets.UTF_8));
        }

        private void onCoordinatorMessage(Message message) {
            try {
                JsonNode body = JSON.readTree(message.getData());
                if (message.getSubject().equals("varpulis.cluster.register")) {
                    registrations.add(body);
                    connection.publish(message.getReplyTo(), JSON.writeValueAsBytes(Map.of("worker_id",
                            body.path("worker_id").asText(), "status", "registered", "heartbeat_interval_secs", 1)));
                }
                else {
                    heartbeats.add(body);
                }
            }
            catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() throws InterruptedException {
            beats.shutdownNow();
            connection.close();
        }

    }

}
