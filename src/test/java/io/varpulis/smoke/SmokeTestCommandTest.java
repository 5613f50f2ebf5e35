package io.varpulis.smoke;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 5: the operators' smoke test reports what it found and what is missing, and exits
 * non-zero on any failure.
 */
@BrokerTest
class SmokeTestCommandTest {

    @RegisterExtension
    static final NatsServerExtension jetStream = NatsServerExtension.jetStream();

    @RegisterExtension
    static final NatsServerExtension coreOnly = NatsServerExtension.coreOnly();

    @Test
    void passesOnAJetStreamServer_createsTheStreams_andLeavesNoTestEventBehind() throws Exception {
        String output = run("--varpulis.nats.url=" + jetStream.url());
        assertThat(output).contains("ok    JetStream is enabled", "stream VARPULIS_ROUTING created", "read it back",
                "all checks passed");
        try (Connection connection = Nats.connect(jetStream.url())) {
            assertThat(connection.jetStreamManagement()
                .getStreamInfo(VarpulisJetStream.ROUTING_STREAM)
                .getStreamState()
                .getMsgCount()).isZero();
        }
        assertThat(exitCode).isZero();
    }

    @Test
    void failsOnACoreOnlyServerAndSaysHowToEnableJetStream() {
        String output = run("--varpulis.nats.url=" + coreOnly.url());
        assertThat(output).contains("ok    connected", "FAIL", "-js", "VARPULIS_NATS_SUBSTRATE=core");
        assertThat(exitCode).isEqualTo(1);
    }

    private int exitCode;

    private String run(String... args) {
        SmokeRun run = SmokeRun.of(args);
        exitCode = run.exitCode();
        return run.output();
    }

}
