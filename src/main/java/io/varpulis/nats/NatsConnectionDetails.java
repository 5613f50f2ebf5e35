package io.varpulis.nats;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

import java.nio.file.Path;
import java.util.List;

/**
 * Where and how a node connects to NATS, in the manner of Spring Boot 4's
 * {@code RabbitConnectionDetails}: the auto-configuration takes this bean when one exists
 * (a Testcontainers container annotated with {@code @ServiceConnection}, a {@code nats}
 * service started by {@code spring-boot-docker-compose}), and otherwise builds one from
 * {@code varpulis.nats.*} ({@link PropertiesNatsConnectionDetails}).
 * <p>
 * At most one authentication method is set: user and password, token, {@code .creds} file
 * or nkey seed file.
 */
public interface NatsConnectionDetails extends ConnectionDetails {

    /**
     * @return the server URLs ({@code nats://host:port} or {@code tls://host:port}), at
     * least one; the client tries them in order and reconnects to any of them
     */
    List<String> getServers();

    /**
     * @return the user for user/password authentication, or {@code null}
     */
    default @Nullable String getUsername() {
        return null;
    }

    /**
     * @return the password for user/password authentication, or {@code null}
     */
    default @Nullable String getPassword() {
        return null;
    }

    /**
     * @return the token for token authentication, or {@code null}
     */
    default @Nullable String getToken() {
        return null;
    }

    /**
     * @return a readable {@code .creds} file (user JWT and nkey seed), or {@code null}
     */
    default @Nullable Path getCredentialsFile() {
        return null;
    }

    /**
     * @return a readable file holding a user nkey seed ({@code SU...}), or {@code null}
     */
    default @Nullable Path getNkeySeedFile() {
        return null;
    }

    /**
     * @return the TLS material (trust and, for servers that verify clients, the client
     * key), or {@code null} for a plain connection; the client always verifies the server
     */
    default @Nullable SslBundle getSslBundle() {
        return null;
    }

}
