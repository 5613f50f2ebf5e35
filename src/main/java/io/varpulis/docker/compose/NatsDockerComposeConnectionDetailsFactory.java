package io.varpulis.docker.compose;

import io.varpulis.nats.NatsConnectionDetails;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

import java.util.List;

/**
 * {@link NatsConnectionDetails} for a {@code nats} service that
 * {@code spring-boot-docker-compose} started (an image named {@code nats}, or a service
 * labelled {@code org.springframework.boot.service-connection: nats}):
 * {@code nats://{host}:{published port of 4222}}. Registered in
 * {@code META-INF/spring.factories}; inert where {@code spring-boot-docker-compose} is
 * not on the classpath.
 */
class NatsDockerComposeConnectionDetailsFactory extends DockerComposeConnectionDetailsFactory<NatsConnectionDetails> {

    /** The client port of the official image. */
    static final int NATS_PORT = 4222;

    NatsDockerComposeConnectionDetailsFactory() {
        super("nats");
    }

    @Override
    protected NatsConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
        return new NatsDockerComposeConnectionDetails(source.getRunningService());
    }

    /** The running service's published client port. */
    static final class NatsDockerComposeConnectionDetails extends DockerComposeConnectionDetails
            implements NatsConnectionDetails {

        private final List<String> servers;

        NatsDockerComposeConnectionDetails(RunningService service) {
            super(service);
            this.servers = List.of("nats://" + service.host() + ":" + service.ports().get(NATS_PORT));
        }

        @Override
        public List<String> getServers() {
            return servers;
        }

    }

}
