package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.smoke.NatsPermissions;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestNatsJwts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The {@code nsc} variant of the permission sets (docs/OPERATING.md): the same {@link NatsPermissions} signed into
 * user JWTs of an account, on a server in operator mode, as {@code nsc add user --allow-pub ... --deny-pub ...
 * --allow-sub ... --allow-pub-response=1} issues them. A coordinator and a worker run a stateful group with their
 * own {@code .creds}, the server logs no violation, and the worker is still refused a stream deletion and every inbox
 * but its own.
 */
@BrokerTest
class NatsRoleJwtPermissionTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String GROUP = "jwtperm";

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void theRolesWorkWithTheirSetsSignedIntoUserJwts_andAWorkerIsStillRefusedAStreamDeletionAndOtherInboxes()
            throws Exception {
        TestNatsJwts jwts = TestNatsJwts.create(nats.workDir().resolve("jwt"));
        nats.withConfig(jwts.serverConfig());
        nats.restart();
        Path coordinatorCreds = creds(jwts, "coordinator", NatsPermissions.coordinator("jwt-coord"));
        Path workerCreds = creds(jwts, "w1", NatsPermissions.worker("w1"));

        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "jwt-coord",
                "--varpulis.nats.credentials=" + coordinatorCreds, "--varpulis.demo.processors.enabled=true");
             ClusterNode worker = ClusterNode.worker(nats, "jetstream", "w1",
                     "--varpulis.nats.credentials=" + workerCreds, "--varpulis.demo.processors.enabled=true")) {
            await().atMost(WAIT).until(() -> worker.worker().isRegistered());
            PipelineGroupSpec group = new PipelineGroupSpec(GROUP, List.of(
                    new PipelineSpec("count", new ProcessorSpec("brute-force", Map.of("threshold", 2))),
                    new PipelineSpec("c", new ProcessorSpec("bean", Map.of("bean", ClusterNode.RECORDER)))),
                    List.of(new RouteSpec(Subjects.EXTERNAL, "count", List.of("SshAuthFailure")),
                            new RouteSpec("count", "c", List.of())));
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", group).status()).isEqualTo(201);
            await().atMost(WAIT).until(() -> coordinator.coordinator().placementOf(GROUP).size() == 2);
            for (int i = 0; i < 2; i++) {
                assertThat(coordinator.post("/api/v1/cluster/pipeline-groups/" + GROUP + "/inject",
                        Map.of("event_type", "SshAuthFailure", "timestamp", "2026-11-30T12:00:00Z",
                                "fields", Map.of("src_ip", "10.0.0.9"))).status()).isEqualTo(202);
            }
            await().atMost(WAIT).until(() -> worker.recorded(GROUP).stream()
                    .anyMatch(e -> e.eventType().equals("BruteForceSuspected")));

            List<String> errors = new CopyOnWriteArrayList<>();
            try (Connection w1 = Nats.connect(new Options.Builder().server(nats.url())
                    .credentialPath(workerCreds.toString())
                    .inboxPrefix(NatsPermissions.worker("w1").inboxPrefix()).errorListener(new ErrorListener() {
                        @Override
                        public void errorOccurred(Connection conn, String error) {
                            errors.add(error);
                        }
                    }).build())) {
                assertThatThrownBy(() -> w1.jetStreamManagement(JetStreamOptions.builder()
                        .requestTimeout(Duration.ofSeconds(1)).build())
                        .deleteStream(VarpulisJetStream.ROUTING_STREAM)).isNotNull();
                w1.subscribe("_INBOX.>");
                w1.subscribe(NatsPermissions.coordinator("jwt-coord").inboxPrefix() + ".>");
                await().atMost(WAIT).untilAsserted(() -> assertThat(String.join("\n", errors))
                        .contains("Publish to \"$JS.API.STREAM.DELETE.VARPULIS_ROUTING\"")
                        .contains("Subscription to \"_INBOX.>\"")
                        .contains("Subscription to \"_INBOX_coordinator_jwt-coord.>\""));
            }
            assertThat(coordinator.delete("/api/v1/cluster/pipeline-groups/" + GROUP + "?purge=true").status())
                    .isEqualTo(204);
        }
        Path log = nats.workDir().getParent().resolve("nats-server.log");
        assertThat(Files.readAllLines(log)).filteredOn(line -> line.contains("Violation"))
                .filteredOn(line -> line.contains(":java:varpulis-")).as("violations of the nodes").isEmpty();
    }

    private static Path creds(TestNatsJwts jwts, String user, NatsPermissions permissions) {
        return jwts.userCreds(user, permissions.publishAllow(), permissions.publishDeny(),
                permissions.subscribeAllow(), permissions.allowResponses());
    }
}
