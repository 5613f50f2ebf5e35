package io.varpulis.smoke;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 13: {@code smoke-test --role worker|coordinator} passes for a user with exactly
 * that role's permission set ({@link NatsPermissions}), fails for a user lacking what the
 * role needs, and fails for a user who may do more (an unrestricted user, one who may
 * read every inbox), naming the permission set to use. It leaves nothing behind.
 */
@BrokerTest
class SmokeTestRoleTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream()
        .withConfig("authorization {\n" + "  users = [\n"
                + NatsPermissions.coordinator("coordinator-0").serverConfigUser("coordinator", "\"coordinator-pw\"")
                + ",\n" + NatsPermissions.worker("w1").serverConfigUser("w1", "\"w1-pw\"") + ",\n"
                + "{ user: \"admin\", password: \"admin-pw\" }\n" + "  ]\n}\n");

    private int exitCode;

    @BeforeAll
    static void createTheStreams() {
        assertThat(new SmokeTestRoleTest().run("--varpulis.nats.url=" + nats.url(), "--varpulis.nats.username=admin",
                "--varpulis.nats.password=admin-pw"))
            .contains("all checks passed");
    }

    @Test
    void aWorkerWithTheWorkerSetPasses_andLeavesNothingBehind() throws Exception {
        long before = storedMessages();
        String output = run("--role", "worker", "--varpulis.cluster.worker-id=w1", "--varpulis.nats.url=" + nats.url(),
                "--varpulis.nats.username=w1", "--varpulis.nats.password=w1-pw");
        assertThat(output)
            .contains("ok    may receive replies in its own inbox (subscribe _INBOX_worker_w1.>)",
                    "ok    may not read every connection's replies (subscribe _INBOX.> refused)",
                    "ok    may not read another node's replies",
                    "ok    may publish its heartbeat (publish varpulis.cluster.heartbeat.w1)",
                    "ok    may not delete a stream", "ok    may not read another worker's commands",
                    "all checks passed: this user has exactly what a worker needs")
            .doesNotContain("FAIL");
        assertThat(exitCode).isZero();
        assertThat(storedMessages()).as("nothing stored").isEqualTo(before);
    }

    @Test
    void aCoordinatorWithTheCoordinatorSetPasses() {
        String output = run("--role=coordinator", "--varpulis.cluster.coordinator-id=coordinator-0",
                "--varpulis.nats.url=" + nats.url(), "--varpulis.nats.username=coordinator",
                "--varpulis.nats.password=coordinator-pw");
        assertThat(output)
            .contains("ok    may receive replies in its own inbox (subscribe _INBOX_coordinator_coordinator-0.>)",
                    "ok    may receive registrations", "ok    may not read the workers' commands", "all checks passed")
            .doesNotContain("FAIL");
        assertThat(exitCode).isZero();
        assertThat(run("--role=coordinator", "--varpulis.nats.url=" + nats.url())).as("its inbox is named after it")
            .contains("varpulis.cluster.coordinator-id");
        assertThat(exitCode).isEqualTo(2);
    }

    @Test
    void aWorkerUserUnderAnotherIdOrAsCoordinatorFailsNamingWhatIsMissing() {
        String asOther = run("--role", "worker", "--varpulis.cluster.worker-id=w2", "--varpulis.nats.url=" + nats.url(),
                "--varpulis.nats.username=w1", "--varpulis.nats.password=w1-pw");
        assertThat(asOther).contains("FAIL  may not publish its heartbeat: grant publish varpulis.cluster.heartbeat.w2",
                "FAIL  may not receive its own commands");
        assertThat(exitCode).isEqualTo(1);
        String asCoordinator = run("--role", "coordinator", "--varpulis.cluster.coordinator-id=coordinator-0",
                "--varpulis.nats.url=" + nats.url(), "--varpulis.nats.username=w1", "--varpulis.nats.password=w1-pw");
        assertThat(asCoordinator).contains("FAIL  may not receive registrations");
        assertThat(exitCode).isEqualTo(1);
    }

    @Test
    void anUnrestrictedUserFailsBecauseItMayDoMoreThanTheRoleNeeds() {
        String output = run("--role", "worker", "--varpulis.cluster.worker-id=w1", "--varpulis.nats.url=" + nats.url(),
                "--varpulis.nats.username=admin", "--varpulis.nats.password=admin-pw");
        assertThat(output).contains("FAIL  may delete a stream", "which a worker does not need",
                "FAIL  may read every connection's replies (subscribe _INBOX.>)",
                "give this user the worker permission set in docs/OPERATING.md");
        assertThat(exitCode).isEqualTo(1);
    }

    @Test
    void anUnknownRoleIsAUsageError() {
        assertThat(run("--role", "workr")).contains("unknown role 'workr'");
        assertThat(exitCode).isEqualTo(2);
    }

    private static long storedMessages() throws Exception {
        try (Connection admin = Nats
            .connect(new Options.Builder().server(nats.url()).userInfo("admin", "admin-pw").build())) {
            long total = 0;
            for (String stream : admin.jetStreamManagement().getStreamNames()) {
                total += admin.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount();
            }
            assertThat(admin.jetStreamManagement().getStreamNames()).contains(VarpulisJetStream.ROUTING_STREAM);
            return total;
        }
    }

    private String run(String... args) {
        SmokeRun run = SmokeRun.of(args);
        exitCode = run.exitCode();
        return run.output();
    }

}
