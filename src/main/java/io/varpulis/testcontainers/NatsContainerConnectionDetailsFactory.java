package io.varpulis.testcontainers;

import io.varpulis.nats.NatsConnectionDetails;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.Container;

import java.util.List;

/**
 * {@link NatsConnectionDetails} from a {@code @ServiceConnection} container of the
 * {@code nats} image (or one annotated {@code @ServiceConnection(name = "nats")}), as
 * Spring Boot's own modules do for theirs: {@code nats://{host}:{mapped 4222}}, with the
 * container's SSL bundle when {@code @Ssl...} annotations give one. Registered in
 * {@code META-INF/spring.factories}; inert where Testcontainers is not on the classpath.
 */
class NatsContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<Container<?>, NatsConnectionDetails> {

    /** The client port of the official image. */
    static final int NATS_PORT = 4222;

    NatsContainerConnectionDetailsFactory() {
        super("nats");
    }

    @Override
    protected NatsConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
        return new NatsContainerConnectionDetails(source);
    }

    /**
     * The container's address, read when the connection is made (the container is started
     * by then).
     */
    private static final class NatsContainerConnectionDetails extends ContainerConnectionDetails<Container<?>>
            implements NatsConnectionDetails {

        private NatsContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
            super(source);
        }

        @Override
        public List<String> getServers() {
            String scheme = getSslBundle() == null ? "nats://" : "tls://";
            return List.of(scheme + getContainer().getHost() + ":" + getContainer().getMappedPort(NATS_PORT));
        }

        @Override
        public @Nullable SslBundle getSslBundle() {
            return super.getSslBundle();
        }

    }

}
