package org.springframework.boot.testcontainers.service.connection;

import io.nats.client.Connection;
import io.varpulis.autoconfigure.NatsAutoConfiguration;
import io.varpulis.nats.NatsConnectionDetails;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @ServiceConnection} container of the {@code nats} image yields
 * {@link NatsConnectionDetails} through our factory's {@code spring.factories}
 * registration, and the auto-configuration connects with them instead of
 * {@code varpulis.nats.url} (pointed here at a port nobody listens on).
 * <p>
 * No Docker engine runs here, so the container is never started: it reports the host and
 * mapped port of a real nats-server process, as a started {@code nats:2.12} container
 * would. That is why this test sits in Boot's package:
 * {@link ContainerConnectionSource}'s constructor is package-private.
 */
@BrokerTest
class NatsServiceConnectionTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @ServiceConnection
    private static final Object ANNOTATED = null;

    @Test
    void aNatsContainerSuppliesTheConnectionAndTheUrlPropertyIsNotUsed() throws Exception {
        ServiceConnection annotation = NatsServiceConnectionTest.class.getDeclaredField("ANNOTATED")
            .getAnnotation(ServiceConnection.class);
        LoopbackNatsContainer container = new LoopbackNatsContainer(nats.port());
        ContainerConnectionSource<LoopbackNatsContainer> source = new ContainerConnectionSource<>("nats",
                Origin.from(container), LoopbackNatsContainer.class, "nats:2.12", annotation, () -> container, null,
                null);
        Map<Class<?>, ConnectionDetails> details = new ConnectionDetailsFactories(getClass().getClassLoader())
            .getConnectionDetails(source, true);
        NatsConnectionDetails connectionDetails = (NatsConnectionDetails) details.get(NatsConnectionDetails.class);

        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class))
            .withBean(NatsConnectionDetails.class, () -> connectionDetails)
            .withPropertyValues("varpulis.nats.url=nats://127.0.0.1:1", "varpulis.nats.startup-retry-timeout=1s")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(NatsConnectionDetails.class).getServers()).containsExactly(nats.url());
                assertThat(context.getBean(Connection.class).getConnectedUrl()).endsWith(":" + nats.port());
            });
    }

    /**
     * A {@code nats} container as Testcontainers reports it once started: its host and
     * its mapped client port.
     */
    private static final class LoopbackNatsContainer extends GenericContainer<LoopbackNatsContainer> {

        private final int port;

        LoopbackNatsContainer(int port) {
            super(DockerImageName.parse("nats:2.12"));
            this.port = port;
        }

        /** Already "started": the real server is the nats-server process. */
        @Override
        public void start() {
        }

        @Override
        public String getHost() {
            return "127.0.0.1";
        }

        @Override
        public Integer getMappedPort(int originalPort) {
            return port;
        }

    }

}
