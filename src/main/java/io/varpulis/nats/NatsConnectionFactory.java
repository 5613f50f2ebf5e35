package io.varpulis.nats;

import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Builds jnats {@link Options} from {@link NatsProperties} and opens the connection, retrying an unreachable server
 * until {@code varpulis.nats.startup-retry-timeout}. Usable without Spring.
 */
public final class NatsConnectionFactory {

    private static final Logger log = LoggerFactory.getLogger(NatsConnectionFactory.class);
    private static final Duration FIRST_RETRY_WAIT = Duration.ofMillis(250);
    private static final Duration MAX_RETRY_WAIT = Duration.ofSeconds(2);

    private NatsConnectionFactory() {
    }

    /**
     * Validates the properties and builds the connection options: servers, authentication, TLS, timeouts, and a
     * reconnect policy that never gives up (the listener logs each step).
     *
     * @param properties     the {@code varpulis.nats.*} settings
     * @param connectionName the name the server shows for this connection
     * @param events         logs connection events and records permission violations
     * @return the options
     * @throws InvalidConfigurationPropertyValueException naming the property, when a value is unusable (empty URL,
     *                                                    two authentication methods, a missing file, half a key pair)
     */
    public static Options options(NatsProperties properties, String connectionName, NatsConnectionEvents events) {
        String[] servers = servers(properties.getUrl());
        Options.Builder builder = new Options.Builder()
                .servers(servers)
                .connectionName(connectionName)
                .connectionTimeout(properties.getConnectTimeout())
                .reconnectWait(properties.getReconnectWait())
                .maxReconnects(-1)
                .connectionListener(events)
                .errorListener(events);
        authentication(properties, builder);
        SSLContext ssl = sslContext(properties, servers);
        if (ssl != null) {
            builder.sslContext(ssl);
        }
        return builder.build();
    }

    /**
     * Connects, retrying while the server is unreachable, until the startup retry timeout.
     *
     * @param options             the options from {@link #options}
     * @param url                 the configured URL, for messages
     * @param startupRetryTimeout how long to keep retrying
     * @param events              the connection's listener, whose last error tells a TLS failure from an
     *                            unreachable server; may be null
     * @return an open connection
     * @throws NatsStartupException when authentication or TLS fails (not retried: waiting cannot fix it) or no
     *                              server answered in time
     */
    public static Connection connect(Options options, String url, Duration startupRetryTimeout,
                                     NatsConnectionEvents events) {
        long deadline = System.nanoTime() + startupRetryTimeout.toNanos();
        Duration wait = FIRST_RETRY_WAIT;
        int attempts = 0;
        while (true) {
            attempts++;
            try {
                return Nats.connect(options);
            } catch (AuthenticationException e) {
                throw new NatsStartupException("NATS server at " + url + " refused this node's credentials: "
                        + e.getMessage(), "Check varpulis.nats.credentials, nkey-seed-file, token or "
                        + "username/password against the server's accounts.", e);
            } catch (IOException e) {
                tlsFailure(url, e, events == null ? null : events.lastException());
                if (System.nanoTime() + wait.toNanos() > deadline) {
                    throw new NatsStartupException("NATS server at " + url + " is unreachable after " + attempts
                            + " attempts in " + startupRetryTimeout.toSeconds() + " s: " + e.getMessage(),
                            "Start nats-server (with -js for the jetstream substrate), fix varpulis.nats.url "
                                    + "(env VARPULIS_NATS_URL), or raise varpulis.nats.startup-retry-timeout.", e);
                }
                log.warn("NATS server at {} not reachable yet ({}); retrying in {} ms", url, e.getMessage(),
                        wait.toMillis());
                sleep(wait, url);
                wait = wait.multipliedBy(2).compareTo(MAX_RETRY_WAIT) > 0 ? MAX_RETRY_WAIT : wait.multipliedBy(2);
            } catch (InterruptedException e) {
                throw interrupted(url, e);
            }
        }
    }

    private static void tlsFailure(String url, IOException error, Exception clientError) {
        Throwable tls = null;
        for (Throwable t : new Throwable[]{error, clientError}) {
            for (Throwable c = t; c != null && tls == null; c = c.getCause()) {
                String message = String.valueOf(c.getMessage());
                if (c instanceof SSLException || message.contains("SSL required") || message.contains("TLS")) {
                    tls = c;
                }
            }
        }
        if (tls != null) {
            throw new NatsStartupException("TLS with the NATS server at " + url + " failed: " + tls.getMessage(),
                    "Check the TLS settings: a tls:// URL or varpulis.nats.tls.enabled for a server that requires "
                            + "TLS, varpulis.nats.tls.ca-file for the CA that signed the server certificate, and "
                            + "varpulis.nats.tls.cert-file and key-file when the server verifies clients.", tls);
        }
    }

    private static String[] servers(String url) {
        String[] servers = url == null ? new String[0] : Arrays.stream(url.split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).toArray(String[]::new);
        if (servers.length == 0) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.url", url,
                    "At least one server URL is required, for example nats://localhost:4222 (a comma-separated list "
                            + "is allowed).");
        }
        for (String server : servers) {
            if (!server.matches("(?i)(nats|tls|ws|wss)://.+") && server.contains("://")) {
                throw new InvalidConfigurationPropertyValueException("varpulis.nats.url", url,
                        "'" + server + "' has an unknown scheme; use nats:// or tls://.");
            }
        }
        return servers;
    }

    private static void authentication(NatsProperties p, Options.Builder builder) {
        List<String> methods = new ArrayList<>();
        if (p.getCredentials() != null) {
            methods.add("varpulis.nats.credentials");
        }
        if (p.getNkeySeedFile() != null) {
            methods.add("varpulis.nats.nkey-seed-file");
        }
        if (p.getToken() != null) {
            methods.add("varpulis.nats.token");
        }
        if (p.getUsername() != null || p.getPassword() != null) {
            methods.add(p.getUsername() != null ? "varpulis.nats.username" : "varpulis.nats.password");
        }
        if (methods.size() > 1) {
            throw new InvalidConfigurationPropertyValueException(methods.get(1), "(set)",
                    "Only one NATS authentication method may be set, found " + String.join(" and ", methods)
                            + "; remove all but one.");
        }
        if (p.getCredentials() != null) {
            builder.authHandler(Nats.credentials(readableFile("varpulis.nats.credentials", p.getCredentials())));
        } else if (p.getNkeySeedFile() != null) {
            String seed = read("varpulis.nats.nkey-seed-file", p.getNkeySeedFile()).trim();
            if (!seed.startsWith("SU")) {
                throw new InvalidConfigurationPropertyValueException("varpulis.nats.nkey-seed-file",
                        p.getNkeySeedFile(), "The file does not hold a user nkey seed (a line starting with SU).");
            }
            builder.authHandler(Nats.staticCredentials(null, seed.toCharArray()));
        } else if (p.getToken() != null) {
            builder.token(p.getToken().toCharArray());
        } else if (p.getUsername() != null) {
            if (p.getPassword() == null) {
                throw new InvalidConfigurationPropertyValueException("varpulis.nats.password", null,
                        "varpulis.nats.username is set without a password; set both or neither.");
            }
            builder.userInfo(p.getUsername(), p.getPassword());
        } else if (p.getPassword() != null) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.username", null,
                    "varpulis.nats.password is set without a username; set both or neither.");
        }
    }

    private static SSLContext sslContext(NatsProperties p, String[] servers) {
        NatsProperties.Tls tls = p.getTls();
        boolean tlsUrl = Arrays.stream(servers)
                .anyMatch(s -> s.toLowerCase(java.util.Locale.ROOT).startsWith("tls://"));
        boolean files = tls.getCaFile() != null || tls.getCertFile() != null || tls.getKeyFile() != null;
        if (!tlsUrl && !files && !tls.isEnabled()) {
            return null;
        }
        if ((tls.getCertFile() == null) != (tls.getKeyFile() == null)) {
            String missing = tls.getCertFile() == null ? "varpulis.nats.tls.cert-file" : "varpulis.nats.tls.key-file";
            throw new InvalidConfigurationPropertyValueException(missing, null,
                    "A client certificate needs both cert-file and key-file; set the missing one or remove the other.");
        }
        if (!files) {
            try {
                return SSLContext.getDefault();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("the JVM has no default TLS context", e);
            }
        }
        PemSslStoreDetails keyStore = tls.getCertFile() == null ? null
                : PemSslStoreDetails.forCertificate(location("varpulis.nats.tls.cert-file", tls.getCertFile()))
                        .withPrivateKey(location("varpulis.nats.tls.key-file", tls.getKeyFile()));
        PemSslStoreDetails trustStore = tls.getCaFile() == null ? null
                : PemSslStoreDetails.forCertificate(location("varpulis.nats.tls.ca-file", tls.getCaFile()));
        return SslBundle.of(new PemSslStoreBundle(keyStore, trustStore)).createSslContext();
    }

    private static String location(String property, String path) {
        return "file:" + readableFile(property, path);
    }

    private static String readableFile(String property, String path) {
        Path file = Path.of(path);
        if (!Files.isReadable(file)) {
            throw new InvalidConfigurationPropertyValueException(property, path,
                    "The file does not exist or cannot be read; give the path of a readable file.");
        }
        return file.toAbsolutePath().toString();
    }

    private static String read(String property, String path) {
        try {
            return Files.readString(Path.of(readableFile(property, path)), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InvalidConfigurationPropertyValueException(property, path, "The file cannot be read: " + e);
        }
    }

    private static void sleep(Duration wait, String url) {
        try {
            Thread.sleep(wait.toMillis());
        } catch (InterruptedException e) {
            throw interrupted(url, e);
        }
    }

    private static NatsStartupException interrupted(String url, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new NatsStartupException("interrupted while connecting to NATS at " + url,
                "Nothing to do: the application was being stopped.", e);
    }
}
