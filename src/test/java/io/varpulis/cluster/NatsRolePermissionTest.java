package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.PublishAck;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.smoke.NatsPermissions;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.varpulis.cluster.RoleChecks.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * SPEC section 10 on a real nats-server configured with the documented permission sets
 * ({@link NatsPermissions}): a coordinator and a worker, each with its own user, run a
 * group with state, parking, replay and a purge; a publisher injects; the server logs no
 * permission violation for any of it. Then what lies outside each set is refused: a
 * worker cannot delete or purge a stream, delete a consumer, read another worker's
 * commands, send its heartbeat or write the coordinators' buckets; a publisher can do
 * nothing but inject at {@code _external}; a coordinator cannot delete the streams.
 */
@BrokerTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NatsRolePermissionTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static final String GROUP = "perm";

    private static final String COORDINATOR_ID = "perm-coord";

    private static final String PUBLISHER = "ingest";

    private static final Map<String, String> INBOXES = Map.of("coordinator",
            NatsPermissions.coordinator(COORDINATOR_ID).inboxPrefix(), "w1", NatsPermissions.worker("w1").inboxPrefix(),
            "publisher", NatsPermissions.publisher(PUBLISHER).inboxPrefix());

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream()
        .withConfig("authorization {\n" + "  users = [\n"
                + NatsPermissions.coordinator(COORDINATOR_ID).serverConfigUser("coordinator", "\"coordinator-pw\"")
                + ",\n" + NatsPermissions.worker("w1").serverConfigUser("w1", "\"w1-pw\"") + ",\n"
                + NatsPermissions.publisher(PUBLISHER).serverConfigUser("publisher", "\"publisher-pw\"") + ",\n"
                + "{ user: \"admin\", password: \"admin-pw\" }\n" + "  ]\n}\n");

    private static ClusterNode coordinator;

    private static ClusterNode worker;

    @BeforeAll
    static void startNodes() {
        coordinator = startCoordinator();
        worker = ClusterNode.worker(nats, "jetstream", "w1", "--varpulis.nats.username=w1",
                "--varpulis.nats.password=w1-pw", RoleChecks.DEMO_PROCESSORS);
    }

    private static ClusterNode startCoordinator() {
        return ClusterNode.coordinator(nats, "jetstream", COORDINATOR_ID, "--varpulis.nats.username=coordinator",
                "--varpulis.nats.password=coordinator-pw", "--varpulis.dlq.write-enabled=true",
                RoleChecks.DEMO_PROCESSORS);
    }

    @AfterAll
    static void stopNodes() {
        if (worker != null) {
            worker.close();
        }
        if (coordinator != null) {
            coordinator.close();
        }
    }

    @Test
    @Order(1)
    void eachRoleDoesItsWorkWithItsOwnPermissionSet_andTheServerLogsNoViolation() throws Exception {
        RoleChecks.runCountingGroup(coordinator, worker, GROUP);

        try (Connection publisher = Nats.connect(new Options.Builder().server(nats.url())
            .userInfo("publisher", "publisher-pw")
            .inboxPrefix(NatsPermissions.publisher(PUBLISHER).inboxPrefix())
            .connectionName("varpulis-publisher")
            .build())) {
            PublishAck ack = publisher.jetStream()
                .publish(Subjects.route(GROUP, Subjects.EXTERNAL, "count"),
                        failureJson("10.0.0.10").getBytes(StandardCharsets.UTF_8));
            assertThat(ack.getStream()).isEqualTo(VarpulisJetStream.ROUTING_STREAM);
        }

        assertThat(coordinator.post("/api/v1/cluster/pipeline-groups/" + GROUP + "/inject", failure("not an address"))
            .status()).isEqualTo(202);
        await().atMost(WAIT)
            .until(() -> coordinator.get("/api/v1/cluster/dlq?unit=count").body().path("depth").asLong() == 1);
        assertThat(coordinator.post("/api/v1/cluster/dlq/replay", Map.of("unit", "count"))
            .body()
            .path("replayed_count")
            .asInt()).isEqualTo(1);
        await().atMost(WAIT)
            .until(() -> coordinator.get("/api/v1/cluster/dlq?unit=count").body().path("depth").asLong() == 1);
        assertThat(coordinator.delete("/api/v1/cluster/dlq?unit=count").status()).isEqualTo(200);

        coordinator.close();
        coordinator = startCoordinator();
        assertThat(coordinator.coordinator().group(GROUP)).as("restored from varpulis_groups").isPresent();
        assertThat(RoleChecks.nodeViolations(nats)).as("permission violations in the server log").isEmpty();
    }

    @Test
    @Order(2)
    void noRoleReadsWhatArrivesInAnotherConnectionsInbox() throws Exception {
        List<String> errors = new CopyOnWriteArrayList<>();
        List<String> overheard = new CopyOnWriteArrayList<>();
        List<String> inboxes = List.of("_INBOX.>", "_INBOX_coordinator_" + COORDINATOR_ID + ".>", "_INBOX_worker_w1.>");
        try (Connection publisher = connect("publisher", "publisher-pw", errors);
                Connection w1 = connect("w1", "w1-pw", errors)) {
            for (String inbox : inboxes) {
                publisher.createDispatcher(message -> overheard.add("publisher: " + message.getSubject()))
                    .subscribe(inbox);
            }
            w1.createDispatcher(message -> overheard.add("w1: " + message.getSubject())).subscribe(inboxes.get(0));
            w1.createDispatcher(message -> overheard.add("w1: " + message.getSubject())).subscribe(inboxes.get(1));
            publisher.flush(Duration.ofSeconds(2));
            w1.flush(Duration.ofSeconds(2));

            // The coordinator's PubAcks and what the worker fetches arrive in their
            // inboxes meanwhile.
            for (int i = 0; i < 2; i++) {
                assertThat(
                        coordinator.post("/api/v1/cluster/pipeline-groups/" + GROUP + "/inject", failure("10.0.0.11"))
                            .status())
                    .isEqualTo(202);
            }
            await().atMost(WAIT)
                .until(() -> worker.recorded(GROUP)
                    .stream()
                    .anyMatch(e -> "10.0.0.11".equals(e.fields().get("src_ip"))));
            await().atMost(WAIT)
                .untilAsserted(() -> assertThat(String.join("\n", errors)).contains("Subscription to \"_INBOX.>\"")
                    .contains("Subscription to \"_INBOX_coordinator_" + COORDINATOR_ID + ".>\"")
                    .contains("Subscription to \"_INBOX_worker_w1.>\""));
            assertThat(overheard).as("replies, PubAcks and fetched events read by another user").isEmpty();
        }
    }

    @Test
    @Order(3)
    void aWorkerCannotDeleteOrPurgeStreams_deleteConsumers_orActForAnotherWorker() throws Exception {
        List<String> errors = new CopyOnWriteArrayList<>();
        try (Connection w1 = connect("w1", "w1-pw", errors)) {
            JetStreamManagement jsm = w1.jetStreamManagement(quick());
            String consumer = anyRouteConsumer();
            assertThatThrownBy(() -> jsm.deleteStream(VarpulisJetStream.ROUTING_STREAM)).isNotNull();
            assertThatThrownBy(() -> jsm.purgeStream(VarpulisJetStream.DLQ_STREAM)).isNotNull();
            assertThatThrownBy(() -> jsm.deleteConsumer(VarpulisJetStream.ROUTING_STREAM, consumer)).isNotNull();
            w1.subscribe(Subjects.command("w2", "deploy"));
            w1.publish(Subjects.heartbeat("w2"), "{}".getBytes(StandardCharsets.UTF_8));
            w1.publish("$KV." + NatsPermissions.GROUPS_BUCKET + "." + GROUP, "{}".getBytes(StandardCharsets.UTF_8));
            w1.flush(Duration.ofSeconds(2));
            await().atMost(WAIT)
                .untilAsserted(() -> assertThat(String.join("\n", errors))
                    .contains("Publish to \"$JS.API.STREAM.DELETE." + VarpulisJetStream.ROUTING_STREAM + "\"")
                    .contains("Publish to \"$JS.API.STREAM.PURGE." + VarpulisJetStream.DLQ_STREAM + "\"")
                    .contains("Publish to \"$JS.API.CONSUMER.DELETE." + VarpulisJetStream.ROUTING_STREAM + "."
                            + consumer + "\"")
                    .contains("Subscription to \"varpulis.cluster.cmd.w2.deploy\"")
                    .contains("Publish to \"varpulis.cluster.heartbeat.w2\"")
                    .contains("Publish to \"$KV.varpulis_groups." + GROUP + "\""));
        }
        try (Connection admin = connect("admin", "admin-pw", null)) {
            JetStreamManagement jsm = admin.jetStreamManagement();
            assertThat(jsm.getStreamInfo(VarpulisJetStream.ROUTING_STREAM)).isNotNull();
            assertThat(jsm.getConsumerNames(VarpulisJetStream.ROUTING_STREAM)).contains(anyRouteConsumer());
        }
    }

    @Test
    @Order(4)
    void aPublisherCanOnlyInjectAtExternalEntries() throws Exception {
        List<String> errors = new CopyOnWriteArrayList<>();
        try (Connection publisher = connect("publisher", "publisher-pw", errors)) {
            publisher.publish(Subjects.route(GROUP, "count", "c"), "{}".getBytes(StandardCharsets.UTF_8));
            publisher.publish(Subjects.command("w1", "undeploy"), "{}".getBytes(StandardCharsets.UTF_8));
            publisher.subscribe(Subjects.PIPELINE_ROOT + ".>");
            assertThatThrownBy(
                    () -> publisher.jetStreamManagement(quick()).getStreamInfo(VarpulisJetStream.ROUTING_STREAM))
                .isNotNull();
            publisher.flush(Duration.ofSeconds(2));
            await().atMost(WAIT)
                .untilAsserted(() -> assertThat(String.join("\n", errors))
                    .contains("Publish to \"varpulis.cluster.pipeline." + GROUP + ".count.c\"")
                    .contains("Publish to \"varpulis.cluster.cmd.w1.undeploy\"")
                    .contains("Subscription to \"varpulis.cluster.pipeline.>\"")
                    .contains("Publish to \"$JS.API.STREAM.INFO." + VarpulisJetStream.ROUTING_STREAM + "\""));
        }
    }

    @Test
    @Order(5)
    void aCoordinatorCannotDeleteTheStreamsOrTheGroupBucket_butPurgesAGroup() throws Exception {
        List<String> errors = new CopyOnWriteArrayList<>();
        try (Connection coordinatorUser = connect("coordinator", "coordinator-pw", errors)) {
            JetStreamManagement jsm = coordinatorUser.jetStreamManagement(quick());
            for (String stream : List.of(VarpulisJetStream.ROUTING_STREAM, VarpulisJetStream.HEARTBEAT_STREAM,
                    VarpulisJetStream.DLQ_STREAM, "KV_" + NatsPermissions.GROUPS_BUCKET)) {
                assertThatThrownBy(() -> jsm.deleteStream(stream)).as(stream).isNotNull();
            }
            await().atMost(WAIT)
                .untilAsserted(() -> assertThat(String.join("\n", errors))
                    .contains("Publish to \"$JS.API.STREAM.DELETE.VARPULIS_ROUTING\"")
                    .contains("Publish to \"$JS.API.STREAM.DELETE.KV_varpulis_groups\""));
        }
        assertThat(coordinator.delete("/api/v1/cluster/pipeline-groups/" + GROUP + "?purge=true").status())
            .isEqualTo(204);
        try (Connection admin = connect("admin", "admin-pw", null)) {
            JetStreamManagement jsm = admin.jetStreamManagement();
            await().atMost(WAIT)
                .until(() -> jsm.getConsumerNames(VarpulisJetStream.ROUTING_STREAM)
                    .stream()
                    .noneMatch(name -> name.contains(GROUP)));
            assertThat(jsm.getStreamNames()).doesNotContain("KV_" + JetStreamKeyValueState.bucketName(GROUP, "count"))
                .contains(VarpulisJetStream.ROUTING_STREAM, "KV_" + NatsPermissions.GROUPS_BUCKET);
        }
        assertThat(RoleChecks.nodeViolations(nats)).as("the purge needed no permission outside the coordinator's set")
            .isEmpty();
    }

    private static String failureJson(String srcIp) {
        return "{\"event_type\":\"SshAuthFailure\",\"timestamp\":\"2026-11-30T12:01:00Z\",\"fields\":{\"src_ip\":\""
                + srcIp + "\",\"user\":\"root\"}}";
    }

    private static String anyRouteConsumer() throws Exception {
        try (Connection admin = connect("admin", "admin-pw", null)) {
            return admin.jetStreamManagement()
                .getConsumerNames(VarpulisJetStream.ROUTING_STREAM)
                .stream()
                .filter(name -> name.startsWith("route_"))
                .findFirst()
                .orElseThrow();
        }
    }

    private static JetStreamOptions quick() {
        return JetStreamOptions.builder().requestTimeout(Duration.ofSeconds(1)).build();
    }

    private static Connection connect(String user, String password, List<String> errors) throws Exception {
        Options.Builder options = new Options.Builder().server(nats.url())
            .userInfo(user, password)
            .connectionTimeout(Duration.ofSeconds(2));
        if (INBOXES.containsKey(user)) {
            // The user's own inbox, as its node or service connects.
            options.inboxPrefix(INBOXES.get(user));
        }
        if (errors != null) {
            options.errorListener(RoleChecks.recordingErrors(errors));
        }
        return Nats.connect(options.build());
    }

}
