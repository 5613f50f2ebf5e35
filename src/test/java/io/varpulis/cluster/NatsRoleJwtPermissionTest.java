package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.smoke.NatsPermissions;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestNatsJwts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The {@code nsc} variant of the permission sets (docs/OPERATING.md): the same
 * {@link NatsPermissions} signed into user JWTs of an account, on a server in operator
 * mode, as {@code nsc add user --allow-pub ... --deny-pub ...
 * --allow-sub ... --allow-pub-response=1} issues them. A coordinator and a worker run a
 * stateful group with their own {@code .creds}, the server logs no violation, and the
 * worker is still refused a stream deletion and every inbox but its own.
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
                "--varpulis.nats.credentials=" + coordinatorCreds, RoleChecks.DEMO_PROCESSORS);
                ClusterNode worker = ClusterNode.worker(nats, "jetstream", "w1",
                        "--varpulis.nats.credentials=" + workerCreds, RoleChecks.DEMO_PROCESSORS)) {
            RoleChecks.runCountingGroup(coordinator, worker, GROUP);

            List<String> errors = new CopyOnWriteArrayList<>();
            try (Connection w1 = Nats.connect(new Options.Builder().server(nats.url())
                .credentialPath(workerCreds.toString())
                .inboxPrefix(NatsPermissions.worker("w1").inboxPrefix())
                .errorListener(RoleChecks.recordingErrors(errors))
                .build())) {
                assertThatThrownBy(() -> w1
                    .jetStreamManagement(JetStreamOptions.builder().requestTimeout(Duration.ofSeconds(1)).build())
                    .deleteStream(VarpulisJetStream.ROUTING_STREAM)).isNotNull();
                w1.subscribe("_INBOX.>");
                w1.subscribe(NatsPermissions.coordinator("jwt-coord").inboxPrefix() + ".>");
                await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(String.join("\n", errors))
                        .contains("Publish to \"$JS.API.STREAM.DELETE.VARPULIS_ROUTING\"")
                        .contains("Subscription to \"_INBOX.>\"")
                        .contains("Subscription to \"_INBOX_coordinator_jwt-coord.>\""));
            }
            assertThat(coordinator.delete("/api/v1/cluster/pipeline-groups/" + GROUP + "?purge=true").status())
                .isEqualTo(204);
        }
        assertThat(RoleChecks.nodeViolations(nats)).as("violations of the nodes").isEmpty();
    }

    private static Path creds(TestNatsJwts jwts, String user, NatsPermissions permissions) {
        return jwts.userCreds(user, permissions.publishAllow(), permissions.publishDeny(), permissions.subscribeAllow(),
                permissions.allowResponses());
    }

}
