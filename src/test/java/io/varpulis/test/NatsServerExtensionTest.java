package io.varpulis.test;

import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Proves {@link NatsServerExtension} against the installed nats-server: JetStream on/off,
 * restart, kill, config.
 */
@BrokerTest
class NatsServerExtensionTest {

    @RegisterExtension
    static final NatsServerExtension jetStream = NatsServerExtension.jetStream();

    @RegisterExtension
    static final NatsServerExtension core = NatsServerExtension.coreOnly();

    @RegisterExtension
    static final NatsServerExtension tokenProtected = NatsServerExtension.coreOnly()
        .withConfig("authorization { token: \"s3cret\" }\n");

    @Test
    void jetStreamServerAnswersJetStreamRequests() throws Exception {
        assertThat(jetStream.url()).isEqualTo("nats://127.0.0.1:" + jetStream.port());
        assertThat(jetStream.jetStreamEnabled()).isTrue();
        try (Connection nc = connect(jetStream.url())) {
            assertThat(nc.jetStreamManagement().getAccountStatistics()).isNotNull();
        }
    }

    @Test
    void coreOnlyServerRejectsJetStreamRequests() throws Exception {
        assertThat(core.jetStreamEnabled()).isFalse();
        try (Connection nc = connect(core.url())) {
            // nats-server 2.9 without -js: the JetStream API has no responders, and jnats
            // 2.25 reports it at once.
            assertThatThrownBy(() -> nc.jetStreamManagement().getAccountStatistics())
                .isExactlyInstanceOf(IOException.class)
                .hasMessage("Timeout or no response waiting for NATS JetStream server");
        }
    }

    @Test
    void restartKeepsPortAndStore() throws Exception {
        createStream("RESTART_PROOF", "restart.proof.>");
        int port = jetStream.port();

        jetStream.restart();

        assertThat(jetStream.port()).isEqualTo(port);
        assertThat(jetStream.storeDir()).isDirectory();
        try (Connection nc = connect(jetStream.url())) {
            assertThat(nc.jetStreamManagement().getStreamNames()).contains("RESTART_PROOF");
        }
    }

    @Test
    void killThenStartRecoversTheStore() throws Exception {
        createStream("KILL_PROOF", "kill.proof.>");

        jetStream.kill();
        assertThatThrownBy(() -> connect(jetStream.url())).isInstanceOf(IOException.class);
        jetStream.start();

        try (Connection nc = connect(jetStream.url())) {
            assertThat(nc.jetStreamManagement().getStreamNames()).contains("KILL_PROOF");
        }
    }

    @Test
    void configTextIsApplied() throws Exception {
        assertThatThrownBy(() -> connect(tokenProtected.url())).isInstanceOf(AuthenticationException.class)
            .hasMessageContaining("Authorization Violation");
        try (Connection nc = Nats.connect(options(tokenProtected.url()).token("s3cret".toCharArray()).build())) {
            assertThat(nc.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
    }

    @Test
    void failedStartupReportsTheServerLog() {
        try (NatsServerExtension broken = NatsServerExtension.coreOnly().withConfig("listen: {{{ not a config\n")) {
            assertThatThrownBy(broken::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited during startup")
                .hasMessageContaining("Parse error")
                .hasMessageContaining("nats-server.log");
        }
    }

    @Test
    void workDirExistsBeforeStartAndIsDeletedOnClose() {
        NatsServerExtension unstarted = NatsServerExtension.coreOnly();
        Path workDir = unstarted.workDir();
        assertThat(workDir).isDirectory();

        unstarted.close();

        assertThat(Files.exists(workDir)).isFalse();
    }

    @Nested
    class AsInstanceField {

        @RegisterExtension
        final NatsServerExtension perTest = NatsServerExtension.coreOnly();

        @Test
        void startsAServerForEachTest() throws Exception {
            assertThat(perTest.port()).isNotIn(jetStream.port(), core.port(), tokenProtected.port());
            try (Connection nc = connect(perTest.url())) {
                assertThat(nc.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            }
        }

    }

    private static void createStream(String name, String subjects) throws Exception {
        try (Connection nc = connect(jetStream.url())) {
            JetStreamManagement jsm = nc.jetStreamManagement();
            jsm.addStream(
                    StreamConfiguration.builder().name(name).subjects(subjects).storageType(StorageType.File).build());
        }
    }

    private static Connection connect(String url) throws Exception {
        return Nats.connect(options(url).build());
    }

    // Short timeout: a refused or unauthorised connection fails within it instead of
    // jnats' default 2 s.
    private static Options.Builder options(String url) {
        return new Options.Builder().server(url).connectionTimeout(Duration.ofMillis(500)).noReconnect();
    }

}
