package org.springframework.boot.docker.compose.service.connection;

import io.nats.client.Connection;
import io.varpulis.nats.NatsConnectionDetails;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.nats.NatsConnectionFactory;
import io.varpulis.test.NatsTestProperties;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.mock.env.MockEnvironment;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code nats} service that {@code spring-boot-docker-compose} reports running yields
 * {@link NatsConnectionDetails} through our factory's {@code spring.factories}
 * registration, and those details reach a real nats-server.
 * <p>
 * No Docker engine runs here, so the running service is described as Docker Compose would
 * describe it (image {@code nats:2.12}, container port 4222 published on a loopback
 * port), which is why this test sits in Boot's package:
 * {@link DockerComposeConnectionSource}'s constructor is package-private.
 */
@BrokerTest
class NatsDockerComposeConnectionDetailsTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void aRunningNatsServiceSuppliesTheServerAndTheConnectionWorks() throws Exception {
        DockerComposeConnectionSource source = new DockerComposeConnectionSource(service("nats:2.12"),
                new MockEnvironment());
        Map<Class<?>, ConnectionDetails> details = new ConnectionDetailsFactories(getClass().getClassLoader())
            .getConnectionDetails(source, true);

        NatsConnectionDetails nats = (NatsConnectionDetails) details.get(NatsConnectionDetails.class);
        assertThat(nats.getServers()).containsExactly(NatsDockerComposeConnectionDetailsTest.nats.url());
        NatsTestProperties settings = new NatsTestProperties();
        try (Connection connection = NatsConnectionFactory.connect(
                NatsConnectionFactory.options(nats, settings.connectionSettings(), "compose-test",
                        new NatsConnectionEvents(settings.connection().getReconnectWait())),
                String.join(",", nats.getServers()), Duration.ofSeconds(5), null)) {
            assertThat(connection.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
    }

    @Test
    void aServiceOfAnotherImageIsNotTakenForNats() {
        DockerComposeConnectionSource source = new DockerComposeConnectionSource(service("redis:7"),
                new MockEnvironment());
        assertThat(new ConnectionDetailsFactories(getClass().getClassLoader()).getConnectionDetails(source, false))
            .doesNotContainKey(NatsConnectionDetails.class);
    }

    private static RunningService service(String image) {
        int published = nats.port();
        return new RunningService() {
            @Override
            public String name() {
                return "nats";
            }

            @Override
            public ImageReference image() {
                return ImageReference.of(image);
            }

            @Override
            public String host() {
                return "127.0.0.1";
            }

            @Override
            public ConnectionPorts ports() {
                return new ConnectionPorts() {
                    @Override
                    public int get(int containerPort) {
                        if (containerPort != 4222) {
                            throw new IllegalStateException("no mapping for " + containerPort);
                        }
                        return published;
                    }

                    @Override
                    public List<Integer> getAll() {
                        return List.of(published);
                    }

                    @Override
                    public List<Integer> getAll(String protocol) {
                        return List.of(published);
                    }
                };
            }

            @Override
            public Map<String, String> env() {
                return Map.of();
            }

            @Override
            public Map<String, String> labels() {
                return Map.of();
            }
        };
    }

}
