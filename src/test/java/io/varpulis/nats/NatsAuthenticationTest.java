package io.varpulis.nats;

import io.varpulis.autoconfigure.PropertiesNatsConnectionDetails;
import io.varpulis.test.NatsTestProperties;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.NKey;
import io.nats.client.Subscription;
import io.varpulis.autoconfigure.NatsAutoConfiguration;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCertificates;
import io.varpulis.test.TestNatsJwts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each authentication method of {@code varpulis.nats.*} against a real nats-server
 * configured for it (SPEC section 2, issue 5): token, username/password, nkey seed,
 * credentials file (operator mode), TLS with a private CA with and without client
 * certificates. Keys, JWTs and certificates are generated here.
 */
@BrokerTest
class NatsAuthenticationTest {

    private static final String TOKEN = "s3cret-token";

    private static final NKey NKEY_USER = newUser();

    private static final String TLS_HANDSHAKE_TIMEOUT = "timeout: 5\n";

    /**
     * jnats reports a refused credential only after the connect timeout; keep it short
     * where one is expected.
     */
    private static final String SHORT_CONNECT_TIMEOUT = "varpulis.nats.connect-timeout=500ms";

    /**
     * A TLS failure is retried like an unreachable server; one attempt is enough to see
     * it fail.
     */
    private static final String SINGLE_ATTEMPT = "varpulis.nats.startup-retry-timeout=200ms";

    @RegisterExtension
    static final NatsServerExtension tokenServer = NatsServerExtension.coreOnly()
        .withConfig("authorization { token: \"" + TOKEN + "\" }\n");

    @RegisterExtension
    static final NatsServerExtension passwordServer = NatsServerExtension.coreOnly()
        .withConfig("authorization { users = [ { user: \"alice\", password: \"wonderland\" } ] }\n");

    @RegisterExtension
    static final NatsServerExtension nkeyServer = NatsServerExtension.coreOnly()
        .withConfig("authorization { users = [ { nkey: \"" + publicKey(NKEY_USER) + "\" } ] }\n");

    @RegisterExtension
    static final NatsServerExtension operatorServer = operatorMode();

    @RegisterExtension
    static final NatsServerExtension tlsServer = tls(false);

    @RegisterExtension
    static final NatsServerExtension mutualTlsServer = tls(true);

    private static TestNatsJwts jwts;

    private static TestCertificates serverCa;

    private static TestCertificates mutualCa;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class))
        .withPropertyValues("varpulis.nats.connect-timeout=5s", "varpulis.nats.startup-retry-timeout=1s");

    @Test
    void rightTokenConnects() {
        runner.withPropertyValues("varpulis.nats.url=" + tokenServer.url(), "varpulis.nats.token=" + TOKEN)
            .run(NatsAuthenticationTest::assertConnectedAndRoundTrips);
    }

    @Test
    void wrongTokenFailsStartupAtOnceSayingTheCredentialsWereRefused() {
        long started = System.nanoTime();
        runner
            .withPropertyValues(SHORT_CONNECT_TIMEOUT, "varpulis.nats.url=" + tokenServer.url(),
                    "varpulis.nats.token=wrong", "varpulis.nats.startup-retry-timeout=10s")
            .run(context -> assertCredentialsRefused(context, tokenServer));
        // A refused credential is not retried: it fails well before the 10 s startup
        // retry timeout.
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void missingTokenFailsStartupSayingTheCredentialsWereRefused() {
        runner.withPropertyValues(SHORT_CONNECT_TIMEOUT, "varpulis.nats.url=" + tokenServer.url())
            .run(context -> assertCredentialsRefused(context, tokenServer));
    }

    @Test
    void connectionFactoryConnectsWithTheTokenWithoutSpring() throws Exception {
        NatsTestProperties properties = new NatsTestProperties();
        properties.connection().setUrl(tokenServer.url());
        properties.connection().setToken(TOKEN);
        NatsConnectionEvents events = new NatsConnectionEvents(properties.connection().getReconnectWait());

        try (Connection connection = NatsConnectionFactory.connect(
                NatsConnectionFactory.options(new PropertiesNatsConnectionDetails(properties.connection()),
                        properties.connectionSettings(), "factory-test", events),
                properties.connection().getUrl(), Duration.ofSeconds(1), events)) {
            assertRoundTrip(connection);
            assertThat(connection.getOptions().getConnectionName()).isEqualTo("factory-test");
        }
    }

    @Test
    void usernameAndPasswordConnect() {
        runner
            .withPropertyValues("varpulis.nats.url=" + passwordServer.url(), "varpulis.nats.username=alice",
                    "varpulis.nats.password=wonderland")
            .run(NatsAuthenticationTest::assertConnectedAndRoundTrips);
    }

    @Test
    void wrongPasswordFailsStartupSayingTheCredentialsWereRefused() {
        runner
            .withPropertyValues(SHORT_CONNECT_TIMEOUT, "varpulis.nats.url=" + passwordServer.url(),
                    "varpulis.nats.username=alice", "varpulis.nats.password=looking-glass")
            .run(context -> assertCredentialsRefused(context, passwordServer));
    }

    @Test
    void nkeySeedFileConnects() {
        Path seed = write(nkeyServer.workDir().resolve("user.nk"), new String(NKEY_USER.getSeed()) + "\n");
        runner.withPropertyValues("varpulis.nats.url=" + nkeyServer.url(), "varpulis.nats.nkey-seed-file=" + seed)
            .run(NatsAuthenticationTest::assertConnectedAndRoundTrips);
    }

    @Test
    void seedOfAnUnknownUserFailsStartupSayingTheCredentialsWereRefused() {
        Path seed = write(nkeyServer.workDir().resolve("stranger.nk"), new String(newUser().getSeed()));
        runner
            .withPropertyValues(SHORT_CONNECT_TIMEOUT, "varpulis.nats.url=" + nkeyServer.url(),
                    "varpulis.nats.nkey-seed-file=" + seed)
            .run(context -> assertCredentialsRefused(context, nkeyServer));
    }

    @Test
    void nkeySeedFileWithoutASeedFailsStartupNamingTheProperty() {
        Path notASeed = write(nkeyServer.workDir().resolve("public.nk"), publicKey(NKEY_USER));
        runner.withPropertyValues("varpulis.nats.url=" + nkeyServer.url(), "varpulis.nats.nkey-seed-file=" + notASeed)
            .run(context -> assertInvalidProperty(context, "varpulis.nats.nkey-seed-file", notASeed.toString()));
    }

    @Test
    void missingNkeySeedFileFailsStartupNamingTheProperty() {
        String missing = nkeyServer.workDir().resolve("absent.nk").toString();
        runner.withPropertyValues("varpulis.nats.url=" + nkeyServer.url(), "varpulis.nats.nkey-seed-file=" + missing)
            .run(context -> assertInvalidProperty(context, "varpulis.nats.nkey-seed-file", missing));
    }

    @Test
    void credentialsFileConnectsToAnOperatorModeServer() {
        Path creds = jwts.userCreds("worker-1");
        runner.withPropertyValues("varpulis.nats.url=" + operatorServer.url(), "varpulis.nats.credentials=" + creds)
            .run(NatsAuthenticationTest::assertConnectedAndRoundTrips);
    }

    @Test
    void credentialsSignedByAnUnknownAccountFailStartupSayingTheCredentialsWereRefused() {
        Path creds = jwts.foreignUserCreds("intruder");
        runner
            .withPropertyValues(SHORT_CONNECT_TIMEOUT, "varpulis.nats.url=" + operatorServer.url(),
                    "varpulis.nats.credentials=" + creds)
            .run(context -> assertCredentialsRefused(context, operatorServer));
    }

    @Test
    void missingCredentialsFileFailsStartupNamingTheProperty() {
        String missing = operatorServer.workDir().resolve("absent.creds").toString();
        runner.withPropertyValues("varpulis.nats.url=" + operatorServer.url(), "varpulis.nats.credentials=" + missing)
            .run(context -> assertInvalidProperty(context, "varpulis.nats.credentials", missing));
    }

    @Test
    void tlsWithThePrivateCaConnects() {
        runner
            .withPropertyValues("varpulis.nats.url=" + tlsServer.url(),
                    "varpulis.nats.tls.ca-file=" + serverCa.caCertificate())
            .run(NatsAuthenticationTest::assertConnectedAndRoundTrips);
    }

    @Test
    void tlsUrlWithThePrivateCaConnects() {
        runner
            .withPropertyValues("varpulis.nats.url=tls://127.0.0.1:" + tlsServer.port(),
                    "varpulis.nats.tls.ca-file=" + serverCa.caCertificate())
            .run(NatsAuthenticationTest::assertConnectedAndRoundTrips);
    }

    @Test
    void tlsWithoutThePrivateCaFailsStartup() {
        runner
            .withPropertyValues(SINGLE_ATTEMPT, "varpulis.nats.url=" + tlsServer.url(),
                    "varpulis.nats.tls.enabled=true")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(cause(context.getStartupFailure(), NatsStartupException.class).getMessage())
                    .contains(tlsServer.url());
            });
    }

    @Test
    void tlsTrustingAnotherCaFailsStartup() {
        runner
            .withPropertyValues(SINGLE_ATTEMPT, "varpulis.nats.url=" + tlsServer.url(),
                    "varpulis.nats.tls.ca-file=" + mutualCa.caCertificate())
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(cause(context.getStartupFailure(), NatsStartupException.class).getMessage())
                    .contains(tlsServer.url());
            });
    }

    @Test
    void nodeWithoutTlsSettingsCannotConnectToATlsServer() {
        runner.withPropertyValues(SINGLE_ATTEMPT, "varpulis.nats.url=" + tlsServer.url())
            .run(context -> assertThat(context).hasFailed());
    }

    @Test
    void clientCertificateConnectsToAServerThatVerifiesClients() {
        TestCertificates.Pem client = mutualCa.issueClient("worker-1");
        runner
            .withPropertyValues("varpulis.nats.url=" + mutualTlsServer.url(),
                    "varpulis.nats.tls.ca-file=" + mutualCa.caCertificate(),
                    "varpulis.nats.tls.cert-file=" + client.certificate(),
                    "varpulis.nats.tls.key-file=" + client.privateKey())
            .run(NatsAuthenticationTest::assertConnectedAndRoundTrips);
    }

    @Test
    void missingClientCertificateFailsStartupOnAServerThatVerifiesClients() {
        runner.withPropertyValues(SINGLE_ATTEMPT, "varpulis.nats.connect-timeout=1s",
                "varpulis.nats.url=" + mutualTlsServer.url(), "varpulis.nats.tls.ca-file=" + mutualCa.caCertificate())
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(cause(context.getStartupFailure(), NatsStartupException.class).getMessage())
                    .contains(mutualTlsServer.url());
            });
    }

    @Test
    void clientCertificateWithoutItsKeyFailsStartupNamingTheMissingProperty() {
        TestCertificates.Pem client = mutualCa.issueClient("half-pair");
        runner
            .withPropertyValues("varpulis.nats.url=" + mutualTlsServer.url(),
                    "varpulis.nats.tls.ca-file=" + mutualCa.caCertificate(),
                    "varpulis.nats.tls.cert-file=" + client.certificate())
            .run(context -> assertInvalidProperty(context, "varpulis.nats.tls.key-file", null));
    }

    @Test
    void missingCaFileFailsStartupNamingTheProperty() {
        String missing = tlsServer.workDir().resolve("absent-ca.pem").toString();
        runner.withPropertyValues("varpulis.nats.url=" + tlsServer.url(), "varpulis.nats.tls.ca-file=" + missing)
            .run(context -> assertInvalidProperty(context, "varpulis.nats.tls.ca-file", missing));
    }

    private static void assertConnectedAndRoundTrips(AssertableApplicationContext context) throws Exception {
        assertThat(context).hasNotFailed();
        Connection connection = context.getBean(Connection.class);
        assertThat(connection.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        assertRoundTrip(connection);
    }

    private static void assertRoundTrip(Connection connection) throws Exception {
        Subscription subscription = connection.subscribe("varpulis.auth.probe");
        connection.publish("varpulis.auth.probe", "hello".getBytes(StandardCharsets.UTF_8));
        Message message = subscription.nextMessage(Duration.ofSeconds(5));
        assertThat(message).isNotNull();
        assertThat(new String(message.getData(), StandardCharsets.UTF_8)).isEqualTo("hello");
    }

    private static void assertCredentialsRefused(AssertableApplicationContext context, NatsServerExtension server) {
        assertThat(context).hasFailed();
        NatsStartupException failure = cause(context.getStartupFailure(), NatsStartupException.class);
        assertThat(failure.getMessage()).contains(server.url(), "credentials");
        assertThat(failure.getAction()).contains("varpulis.nats.credentials", "token", "username/password");
    }

    private static void assertInvalidProperty(AssertableApplicationContext context, String property, String value) {
        assertThat(context).hasFailed();
        InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure(),
                InvalidConfigurationPropertyValueException.class);
        assertThat(failure.getName()).isEqualTo(property);
        assertThat(failure.getValue()).isEqualTo(value);
    }

    private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the cause chain of " + failure, failure);
    }

    private static NatsServerExtension operatorMode() {
        NatsServerExtension server = NatsServerExtension.coreOnly();
        jwts = TestNatsJwts.create(server.workDir().resolve("jwt"));
        return server.withConfig(jwts.serverConfig());
    }

    /**
     * A TLS server with its own CA; {@code verifyClients} also requires a client
     * certificate that CA signed.
     */
    private static NatsServerExtension tls(boolean verifyClients) {
        NatsServerExtension server = NatsServerExtension.coreOnly();
        TestCertificates ca = TestCertificates.createAuthority(server.workDir().resolve("pki"),
                verifyClients ? "Varpulis mutual TLS test CA" : "Varpulis TLS test CA");
        TestCertificates.Pem cert = ca.issueServer("server");
        String config = "tls {\n  cert_file: \"" + cert.certificate() + "\"\n  key_file: \"" + cert.privateKey()
                + "\"\n  " + TLS_HANDSHAKE_TIMEOUT;
        if (verifyClients) {
            config += "  ca_file: \"" + ca.caCertificate() + "\"\n  verify: true\n";
            mutualCa = ca;
        }
        else {
            serverCa = ca;
        }
        return server.withConfig(config + "}\n");
    }

    private static NKey newUser() {
        try {
            return NKey.createUser(null);
        }
        catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot create an nkey", e);
        }
    }

    private static String publicKey(NKey key) {
        try {
            return new String(key.getPublicKey());
        }
        catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path write(Path file, String text) {
        try {
            return Files.writeString(file, text, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
