package io.varpulis.autoconfigure;

import io.varpulis.nats.ConnectionSettings;
import io.varpulis.nats.NatsConnectionDetails;
import io.varpulis.nats.Substrate;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * Where and how to connect to NATS, {@code varpulis.nats.*} (SPEC section 2): the server
 * URLs, the authentication method, TLS, the timeouts of connecting and reconnecting, the
 * connection's name and inbox, and the substrate of the event paths. Every key can also
 * be set by environment variable ({@code VARPULIS_NATS_URL},
 * {@code VARPULIS_NATS_SUBSTRATE}, ...). Read through {@link NatsConnectionDetails}
 * ({@link PropertiesNatsConnectionDetails}) and {@link ConnectionSettings}; the JetStream
 * settings under {@code varpulis.nats.jetstream} are other classes' (publishing,
 * consumers, streams, health).
 */
@ConfigurationProperties("varpulis.nats")
public class NatsConnectionProperties {

    /**
     * NATS server URL, or a comma-separated list of them ({@code nats://} or
     * {@code tls://}).
     */
    private String url = "nats://localhost:4222";

    /**
     * Substrate of the event paths: {@code core} (fire-and-forget, the default) or
     * {@code jetstream} (stored, redelivered). Case-insensitive; aliases {@code pubsub},
     * {@code pub_sub} and {@code js}. An empty or unknown value fails startup; JetStream
     * on a server without it fails startup too, never falls back to core.
     */
    private Substrate substrate = Substrate.CORE;

    /**
     * Name the connection shows in the server's monitoring; defaults to
     * {@code spring.application.name}, else {@code varpulis} (a cluster node's:
     * {@code varpulis-{role}-{node id}}).
     */
    private String connectionName;

    /**
     * Inbox prefix of the connection: replies to its requests, its PubAcks, the messages
     * its pull consumers fetch and its key-value reads arrive on
     * {@code {inbox-prefix}.{nuid}}. A cluster node defaults to
     * {@code _INBOX_{role}_{id}} ({@code _INBOX_worker_worker-1},
     * {@code _INBOX_coordinator_coordinator-0}, {@code _INBOX_standalone_{worker id}}),
     * so that each node's NATS user may subscribe to its own inbox only (SPEC section 10,
     * docs/OPERATING.md); elsewhere jnats' {@code _INBOX}. Subject tokens separated by
     * dots, no wildcards.
     */
    private String inboxPrefix;

    /**
     * Path of a {@code .creds} file (user JWT and nkey seed). At most one authentication
     * method may be set.
     */
    private String credentials;

    /**
     * Path of a file holding an nkey seed ({@code SU...}). At most one authentication
     * method may be set.
     */
    private String nkeySeedFile;

    /** Token for token authentication. At most one authentication method may be set. */
    private String token;

    /** User name for user/password authentication (with {@code password}). */
    private String username;

    /** Password for user/password authentication (with {@code username}). */
    private String password;

    /** How long one connection attempt may take. */
    private Duration connectTimeout = Duration.ofSeconds(5);

    /** How long startup keeps retrying an unreachable server before it fails. */
    private Duration startupRetryTimeout = Duration.ofSeconds(30);

    /**
     * Wait between reconnection attempts after the connection was lost (jnats reconnects
     * forever).
     */
    private Duration reconnectWait = Duration.ofSeconds(2);

    /** TLS settings; a {@code tls://} URL or any key here turns TLS on. */
    private final Tls tls = new Tls();

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public Substrate getSubstrate() {
        return substrate;
    }

    public void setSubstrate(Substrate substrate) {
        this.substrate = substrate;
    }

    public String getConnectionName() {
        return connectionName;
    }

    public void setConnectionName(String connectionName) {
        this.connectionName = connectionName;
    }

    public String getInboxPrefix() {
        return inboxPrefix;
    }

    public void setInboxPrefix(String inboxPrefix) {
        this.inboxPrefix = inboxPrefix;
    }

    public String getCredentials() {
        return credentials;
    }

    public void setCredentials(String credentials) {
        this.credentials = credentials;
    }

    public String getNkeySeedFile() {
        return nkeySeedFile;
    }

    public void setNkeySeedFile(String nkeySeedFile) {
        this.nkeySeedFile = nkeySeedFile;
    }

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getStartupRetryTimeout() {
        return startupRetryTimeout;
    }

    public void setStartupRetryTimeout(Duration startupRetryTimeout) {
        this.startupRetryTimeout = startupRetryTimeout;
    }

    public Duration getReconnectWait() {
        return reconnectWait;
    }

    public void setReconnectWait(Duration reconnectWait) {
        this.reconnectWait = reconnectWait;
    }

    public Tls getTls() {
        return tls;
    }

    /**
     * @param requestCleanupInterval how long a late reply is still awaited
     * ({@code varpulis.nats.jetstream.late-pub-ack-window})
     * @return the timeouts and inbox of the connection
     */
    public ConnectionSettings toSettings(Duration requestCleanupInterval) {
        return new ConnectionSettings(connectTimeout, reconnectWait, requestCleanupInterval, inboxPrefix);
    }

    /** PEM files for TLS; the client always verifies the server. */
    public static class Tls {

        /**
         * Turns TLS on even without a {@code tls://} URL or files (the JVM's trust store
         * then verifies the server).
         */
        private boolean enabled;

        /**
         * PEM file of the CA that signed the server certificate (a private CA); the JVM's
         * trust store when unset.
         */
        private String caFile;

        /**
         * PEM file of the client certificate, for servers that verify clients (with
         * {@code key-file}).
         */
        private String certFile;

        /** PEM file of the client certificate's private key (with {@code cert-file}). */
        private String keyFile;

        /**
         * Name of a Spring Boot SSL bundle ({@code spring.ssl.bundle.pem.<name>} or
         * {@code .jks.<name>}) to use instead of the PEM files.
         */
        private String bundle;

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getCaFile() {
            return caFile;
        }

        public void setCaFile(String caFile) {
            this.caFile = caFile;
        }

        public String getCertFile() {
            return certFile;
        }

        public void setCertFile(String certFile) {
            this.certFile = certFile;
        }

        public String getKeyFile() {
            return keyFile;
        }

        public void setKeyFile(String keyFile) {
            this.keyFile = keyFile;
        }

    }

}
