package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.varpulis.cluster.coordinator.WorkerRecord;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 3 on a real JetStream broker: a coordinator and two workers, each its own Spring
 * context of the node application, register, place a three-pipeline group, carry an
 * injected event to its last pipeline, keep commands and registration off JetStream, and
 * refuse invalid groups with a JSON error and a fitting status.
 * <p>
 * The three nodes are shared by the tests (starting them is the slow part); each test
 * uses its own group.
 */
@BrokerTest
class ClusterPlacementTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static ClusterNode coordinator;

    private static ClusterNode worker1;

    private static ClusterNode worker2;

    @BeforeAll
    static void startCluster() {
        coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-placement");
        var w1 = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats, "jetstream", "worker-1"));
        var w2 = CompletableFuture.supplyAsync(() -> ClusterNode.worker(nats, "jetstream", "worker-2"));
        worker1 = w1.join();
        worker2 = w2.join();
    }

    @AfterAll
    static void stopCluster() {
        for (ClusterNode node : new ClusterNode[] { coordinator, worker1, worker2 }) {
            if (node != null) {
                node.close();
            }
        }
    }

    @Test
    void bothWorkersRegisterAndAreReady() throws Exception {
        await().atMost(WAIT).until(() -> worker1.worker().isRegistered() && worker2.worker().isRegistered());
        await().atMost(WAIT).untilAsserted(() -> {
            ClusterNode.Response workers = coordinator.get("/api/v1/cluster/workers");
            assertThat(workers.status()).isEqualTo(200);
            Map<String, String> status = new HashMap<>();
            workers.body()
                .forEach(w -> status.put(w.path("worker").path("worker_id").asText(),
                        w.path("worker").path("status").asText()));
            assertThat(status).containsEntry("worker-1", "ready").containsEntry("worker-2", "ready");
        });
        JsonNode record = coordinator.get("/api/v1/cluster/workers")
            .body()
            .findValues("worker")
            .stream()
            .filter(w -> w.path("worker_id").asText().equals("worker-1"))
            .findFirst()
            .orElseThrow();
        assertThat(record.path("capacity").path("max_pipelines").asInt()).isEqualTo(32);
        assertThat(record.path("last_heartbeat").isNull()).isFalse();
    }

    @Test
    void threePipelineGroupIsPlacedOnBothWorkersAndAnEventInjectedAtExternalReachesItsLastPipeline() throws Exception {
        awaitBothReady();
        PipelineGroupSpec group = TestGroups.threeStages("relay");

        ClusterNode.Response created = coordinator.post("/api/v1/cluster/pipeline-groups", group);

        assertThat(created.status()).isEqualTo(201);
        Map<String, String> placement = awaitRunning("relay");
        assertThat(placement).containsOnlyKeys("a", "b", "c");
        assertThat(new HashSet<>(placement.values())).as("least-loaded placement uses both workers")
            .containsExactlyInAnyOrder("worker-1", "worker-2");
        assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/relay").body().path("placement").path("c").asText())
            .isEqualTo(placement.get("c"));

        ClusterNode.Response dropped = coordinator.post("/api/v1/cluster/pipeline-groups/relay/inject",
                Map.of("event_type", "Probe", "fields", Map.of("n", 1, "drop", true)));
        ClusterNode.Response kept = coordinator.post("/api/v1/cluster/pipeline-groups/relay/inject",
                Map.of("event_type", "Probe", "fields", Map.of("n", 2)));

        assertThat(dropped.status()).isEqualTo(202);
        assertThat(kept.status()).isEqualTo(202);
        assertThat(kept.body().path("routes").get(0).asText()).isEqualTo("a");
        ClusterNode last = placement.get("c").equals("worker-1") ? worker1 : worker2;
        ClusterNode other = last == worker1 ? worker2 : worker1;
        await().atMost(WAIT).until(() -> !last.recorded("relay").isEmpty());
        assertThat(last.recorded("relay")).as("b filtered out the event with drop=true; c got the other one")
            .containsExactly(Event.of("Probe", Map.of("n", 2)));
        assertThat(other.recorded("relay")).isEmpty();

        JsonNode topology = coordinator.get("/api/v1/cluster/topology").body();
        assertThat(topology.path("substrate").asText()).isEqualTo("jetstream");
        assertThat(topology.findValues("subject").stream().map(JsonNode::asText).toList()).contains(
                "varpulis.cluster.pipeline.relay._external.a", "varpulis.cluster.pipeline.relay.a.b",
                "varpulis.cluster.pipeline.relay.b.c");
    }

    @Test
    void commandsAndRegistrationNeverGoThroughJetStream() throws Exception {
        awaitBothReady();
        Map<String, Integer> seenOnCore = new ConcurrentHashMap<>();
        try (Connection observer = Nats.connect(nats.url())) {
            Dispatcher dispatcher = observer.createDispatcher(m -> seenOnCore.merge(
                    m.getSubject().startsWith(Subjects.COMMAND_ROOT)
                            ? m.getSubject().substring(m.getSubject().lastIndexOf('.') + 1) : m.getSubject(),
                    1, Integer::sum));
            dispatcher.subscribe(Subjects.COMMAND_ROOT + ".>");
            dispatcher.subscribe(Subjects.REGISTER);
            observer.flush(Duration.ofSeconds(2));

            // deploy (placement), inject, undeploy (removal) and a registration asked for
            // by the coordinator's command
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("commands")).status())
                .isEqualTo(201);
            awaitRunning("commands");
            assertThat(coordinator
                .post("/api/v1/cluster/pipeline-groups/commands/inject",
                        Map.of("event_type", "Probe", "fields", Map.of("n", 7)))
                .status()).isEqualTo(202);
            Message injected = observer.request(Subjects.command("worker-1", Commands.INJECT),
                    ("{\"pipeline_id\": \"commands/a\", \"event_type\": \"Probe\", \"fields\": {\"n\": 8}}")
                        .getBytes(StandardCharsets.UTF_8),
                    Duration.ofSeconds(5));
            assertThat(new String(injected.getData(), StandardCharsets.UTF_8)).contains("\"status\":\"injected\"",
                    "\"stream\":\"VARPULIS_ROUTING\"");
            assertThat(coordinator.delete("/api/v1/cluster/pipeline-groups/commands").status()).isEqualTo(204);
            Message registering = observer.request(Subjects.command("worker-2", Commands.REGISTER),
                    "{}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
            assertThat(new String(registering.getData(), StandardCharsets.UTF_8)).contains("registering");
            await().atMost(WAIT)
                .untilAsserted(() -> assertThat(seenOnCore).containsKeys("deploy", "undeploy", "inject", "register",
                        Subjects.REGISTER));
        }

        JetStreamManagement jsm = worker1.context().getBean(Connection.class).jetStreamManagement();
        List<String> control = List.of(Subjects.REGISTER, Subjects.COMMAND_ROOT + ".>",
                Subjects.command("worker-1", Commands.DEPLOY), Subjects.command("worker-2", Commands.INJECT),
                Subjects.command("worker-1", Commands.REGISTER));
        List<String> streams = jsm.getStreamNames();
        assertThat(streams).contains("VARPULIS_ROUTING", "VARPULIS_HEARTBEAT", "VARPULIS_DLQ");
        for (String stream : streams) {
            StreamInfo info = jsm.getStreamInfo(stream);
            for (String filter : info.getConfiguration().getSubjects()) {
                for (String subject : control) {
                    assertThat(overlap(filter, subject)).as("stream %s subject %s captures %s", stream, filter, subject)
                        .isFalse();
                }
            }
            for (String subject : List.of(Subjects.REGISTER, Subjects.COMMAND_ROOT + ".>")) {
                var stored = jsm.getStreamInfo(stream, StreamInfoOptions.filterSubjects(subject))
                    .getStreamState()
                    .getSubjects();
                assertThat(stored == null ? List.of() : stored).as("messages of stream %s on %s", stream, subject)
                    .isEmpty();
            }
        }
    }

    @Test
    void groupNameThatIsNotANatsTokenIsRejectedWith400NamingIt() throws Exception {
        awaitBothReady();
        PipelineGroupSpec spaced = TestGroups.threeStages("bad name");
        PipelineGroupSpec dotted = TestGroups.threeStages("bad.name");

        for (PipelineGroupSpec group : List.of(spaced, dotted)) {
            ClusterNode.Response response = coordinator.post("/api/v1/cluster/pipeline-groups", group);
            assertError(response, 400, "'" + group.name() + "'", "NATS subject token");
        }
        assertThat(coordinator.get("/api/v1/cluster/pipeline-groups")
            .body()
            .findValues("name")
            .stream()
            .map(JsonNode::asText)).doesNotContain("bad name", "bad.name");
    }

    @Test
    void unknownProcessorTypeIsRejectedWith400NamingItAndTheKnownOnes() throws Exception {
        awaitBothReady();
        String body = """
                {"name": "unknown-type", "pipelines": [{"name": "a", "processor": {"type": "no-such-type"}}],
                 "routes": [{"from_pipeline": "_external", "to_pipeline": "a"}]}""";

        ClusterNode.Response response = coordinator.post("/api/v1/cluster/pipeline-groups", body);

        assertError(response, 400, "no-such-type", "passthrough", "filter", "bean");
        assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/unknown-type").status()).isEqualTo(404);
    }

    @Test
    void spelFilterWithATypeReferenceIsRejectedWith400BeforeAnythingRuns() throws Exception {
        awaitBothReady();
        String body = """
                {"name": "spel", "pipelines": [{"name": "a", "processor": {"type": "filter", "settings":
                  {"expression": "T(java.lang.Runtime).getRuntime().exec('touch /tmp/varpulis-pwned') != null"}}}],
                 "routes": [{"from_pipeline": "_external", "to_pipeline": "a"}]}""";

        ClusterNode.Response response = coordinator.post("/api/v1/cluster/pipeline-groups", body);

        assertError(response, 400, "T(java.lang.Runtime)", "type, constructor and bean references");
        assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/spel").status()).isEqualTo(404);
    }

    @Test
    void spelFilterThatNavigatesIntoTextIsRejectedWith400InsteadOfParkingEveryEvent() throws Exception {
        awaitBothReady();
        String body = """
                {"name": "spel-nav", "pipelines": [{"name": "a", "processor": {"type": "filter", "settings":
                  {"expression": "event_type.class.name == 'java.lang.String'"}}}],
                 "routes": [{"from_pipeline": "_external", "to_pipeline": "a"}]}""";

        ClusterNode.Response response = coordinator.post("/api/v1/cluster/pipeline-groups", body);

        assertError(response, 400, "event_type is text, nothing can be read from it");
        assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/spel-nav").status()).isEqualTo(404);
    }

    @Test
    void unknownGroupAnswers404WithAJsonError() throws Exception {
        assertError(coordinator.get("/api/v1/cluster/pipeline-groups/nope"), 404, "nope");
        assertError(coordinator.delete("/api/v1/cluster/pipeline-groups/nope"), 404, "nope");
        assertError(coordinator.post("/api/v1/cluster/pipeline-groups/nope/inject",
                Map.of("event_type", "Probe", "fields", Map.of())), 404, "nope");
    }

    @Test
    void duplicateGroupAnswers409AndKeepsTheFirst() throws Exception {
        awaitBothReady();
        assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", TestGroups.threeStages("twice")).status())
            .isEqualTo(201);

        ClusterNode.Response again = coordinator.post("/api/v1/cluster/pipeline-groups",
                TestGroups.threeStages("twice"));

        assertError(again, 409, "twice", "already exists");
        assertThat(coordinator.get("/api/v1/cluster/pipeline-groups/twice").status()).isEqualTo(200);
        assertThat(coordinator.delete("/api/v1/cluster/pipeline-groups/twice?purge=true").status()).isEqualTo(204);
    }

    private static void assertError(ClusterNode.Response response, int status, String... mentions) {
        assertThat(response.status()).as("status of %s", response.body()).isEqualTo(status);
        assertThat(response.body().isObject()).isTrue();
        List<String> fields = new ArrayList<>();
        response.body().fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly("error");
        assertThat(response.body().path("error").asText()).contains(mentions);
    }

    private static void awaitBothReady() {
        await().atMost(WAIT)
            .until(() -> coordinator.coordinator().workers().stream().filter(WorkerRecord::isReady).count() == 2);
    }

    /**
     * Waits until the workers' heartbeats report every pipeline of the group running;
     * returns the placement.
     */
    private static Map<String, String> awaitRunning(String group) {
        await().atMost(WAIT).until(() -> {
            Set<String> running = new HashSet<>();
            for (WorkerRecord worker : coordinator.coordinator().workers()) {
                if (worker.heartbeat() != null) {
                    worker.heartbeat()
                        .pipelineMetrics()
                        .stream()
                        .filter(m -> group.equals(m.group()))
                        .forEach(m -> running.add(m.pipelineName()));
                }
            }
            return running.equals(Set.of("a", "b", "c"));
        });
        return coordinator.coordinator().placementOf(group);
    }

    /**
     * Whether two NATS subjects (with {@code *} and {@code >} wildcards) can match a
     * common subject.
     */
    static boolean overlap(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            if (i >= x.length || i >= y.length) {
                return false;
            }
            if (x[i].equals(">") || y[i].equals(">")) {
                return true;
            }
            if (!x[i].equals("*") && !y[i].equals("*") && !x[i].equals(y[i])) {
                return false;
            }
        }
        return true;
    }

}
