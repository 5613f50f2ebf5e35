package io.varpulis.nats;

import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.varpulis.support.Backoffs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import javax.net.ssl.SSLException;

/**
 * Builds jnats {@link Options} from {@link NatsConnectionDetails} and
 * {@link ConnectionSettings} and opens the connection, retrying an unreachable server
 * until {@code varpulis.nats.startup-retry-timeout}. Usable without Spring.
 */
public final class NatsConnectionFactory {

    private static final Logger log = LoggerFactory.getLogger(NatsConnectionFactory.class);

    private static final Duration FIRST_RETRY_WAIT = Duration.ofMillis(250);

    private static final Duration MAX_RETRY_WAIT = Duration.ofSeconds(2);

    private NatsConnectionFactory() {
    }

    /**
     * Builds the connection options: servers, authentication and TLS from the connection
     * details, timeouts from the settings, a reconnect policy that never gives up (the
     * listener logs each step), and a request cleanup interval of
     * {@code varpulis.nats.jetstream.late-pub-ack-window}, so that a PubAck that comes
     * after the publish timeout still reaches its publisher.
     * @param details where and how to connect
     * @param settings connect timeout, reconnect wait, request cleanup interval and inbox
     * prefix
     * @param connectionName the name the server shows for this connection
     * @param events logs connection events and records permission violations
     * @return the options
     * @throws InvalidConfigurationPropertyValueException naming
     * {@code varpulis.nats.inbox-prefix} when it is not subject tokens
     */
    public static Options options(NatsConnectionDetails details, ConnectionSettings settings, String connectionName,
            NatsConnectionEvents events) {
        Options.Builder builder = new Options.Builder().servers(details.getServers().toArray(String[]::new))
            .connectionName(connectionName)
            .connectionTimeout(settings.connectTimeout())
            .reconnectWait(settings.reconnectWait())
            .maxReconnects(-1)
            .requestCleanupInterval(settings.requestCleanupInterval())
            .connectionListener(events)
            .errorListener(events);
        if (details.getCredentialsFile() != null) {
            builder.authHandler(Nats.credentials(details.getCredentialsFile().toString()));
        }
        else if (details.getNkeySeedFile() != null) {
            builder.authHandler(Nats.staticCredentials(null, readSeed(details.getNkeySeedFile())));
        }
        else if (details.getToken() != null) {
            builder.token(details.getToken().toCharArray());
        }
        else if (details.getUsername() != null) {
            builder.userInfo(details.getUsername(), details.getPassword());
        }
        SslBundle ssl = details.getSslBundle();
        if (ssl != null) {
            builder.sslContext(ssl.createSslContext());
        }
        if (settings.inboxPrefix() != null) {
            builder.inboxPrefix(inboxPrefix(settings.inboxPrefix()));
        }
        return builder.build();
    }

    /**
     * The prefix without its trailing dot (jnats adds it), checked: one or more tokens,
     * no wildcard.
     */
    private static String inboxPrefix(String prefix) {
        String trimmed = prefix.trim();
        String withoutDot = trimmed.endsWith(".") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
        if (!Arrays.stream(withoutDot.split("\\.", -1)).allMatch(Subjects::isToken)) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.inbox-prefix", prefix,
                    "An inbox prefix is one or more subject tokens separated by dots (letters, digits, '-' and '_'; "
                            + "no spaces, '*' or '>'), for example _INBOX_worker_worker-1; grant the node's NATS user "
                            + "subscribe on {prefix}.>.");
        }
        return withoutDot;
    }

    private static char[] readSeed(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).trim().toCharArray();
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot read the nkey seed file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Connects, retrying while the server is unreachable, until the startup retry
     * timeout.
     * @param options the options from {@link #options}
     * @param url the configured URL, for messages
     * @param startupRetryTimeout how long to keep retrying
     * @param events the connection's listener, whose last error tells a TLS failure from
     * an unreachable server; may be null
     * @return an open connection
     * @throws NatsStartupException when authentication or TLS fails (not retried: waiting
     * cannot fix it) or no server answered in time
     */
    public static Connection connect(Options options, String url, Duration startupRetryTimeout,
            NatsConnectionEvents events) {
        long deadline = System.nanoTime() + startupRetryTimeout.toNanos();
        BackOffExecution waits = Backoffs.start(FIRST_RETRY_WAIT, MAX_RETRY_WAIT);
        int attempts = 0;
        while (true) {
            attempts++;
            try {
                return Nats.connect(options);
            }
            catch (AuthenticationException e) {
                throw new NatsStartupException(
                        "NATS server at " + url + " refused this node's credentials: " + e.getMessage(),
                        "Check varpulis.nats.credentials, nkey-seed-file, token or "
                                + "username/password against the server's accounts.",
                        e);
            }
            catch (IOException e) {
                tlsFailure(url, e, events == null ? null : events.lastException());
                Duration wait = Duration.ofMillis(waits.nextBackOff());
                if (System.nanoTime() + wait.toNanos() > deadline) {
                    throw new NatsStartupException(
                            "NATS server at " + url + " is unreachable after " + attempts + " attempts in "
                                    + startupRetryTimeout.toSeconds() + " s: " + e.getMessage(),
                            "Start nats-server (with -js for the jetstream substrate), fix varpulis.nats.url "
                                    + "(env VARPULIS_NATS_URL), or raise varpulis.nats.startup-retry-timeout.",
                            e);
                }
                log.warn("NATS server at {} not reachable yet ({}); retrying in {} ms", url, e.getMessage(),
                        wait.toMillis());
                sleep(wait, url);
            }
            catch (InterruptedException e) {
                throw interrupted(url, e);
            }
        }
    }

    private static void tlsFailure(String url, IOException error, Exception clientError) {
        Throwable tls = null;
        for (Throwable t : new Throwable[] { error, clientError }) {
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
                            + "varpulis.nats.tls.cert-file and key-file when the server verifies clients.",
                    tls);
        }
    }

    private static void sleep(Duration wait, String url) {
        try {
            Thread.sleep(wait.toMillis());
        }
        catch (InterruptedException e) {
            throw interrupted(url, e);
        }
    }

    private static NatsStartupException interrupted(String url, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new NatsStartupException("interrupted while connecting to NATS at " + url,
                "Nothing to do: the application was being stopped.", e);
    }

}
