package io.varpulis.nats;

import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import org.springframework.boot.context.properties.ConfigurationProperties;
import io.varpulis.support.PropertyChecks;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The NATS connection and substrate settings, {@code varpulis.nats.*} (SPEC section 2).
 * Every key can also be set by environment variable ({@code VARPULIS_NATS_URL},
 * {@code VARPULIS_NATS_SUBSTRATE}, ...). The JetStream limits default to ADR-007's
 * values; the reasons for each number sit next to it.
 * <p>
 * Longer than most: it is data, one field with its Javadoc sentence and one getter and
 * setter per key, which is what Spring Boot binds and what the configuration metadata
 * documents; domain code never sees it (it receives {@link ConnectionSettings} and the
 * settings mapped from the nested classes).
 */
@ConfigurationProperties(prefix = "varpulis.nats")
public class NatsProperties implements Validator {

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
     * {@code varpulis-{role}-{node id}}.
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

    /** JetStream settings, used when the substrate is {@code jetstream}. */
    private final JetStream jetstream = new JetStream();

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

    public JetStream getJetstream() {
        return jetstream;
    }

    /**
     * @param type a class being bound
     * @return whether it is this class, which validates itself while Spring Boot binds it
     */
    @Override
    public boolean supports(Class<?> type) {
        return NatsProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks the ranges of the JetStream settings; Spring Boot fails startup with each
     * violation, naming the property, its value and its origin.
     * @param target the bound properties
     * @param errors where violations go
     */
    @Override
    public void validate(Object target, Errors errors) {
        JetStream js = ((NatsProperties) target).getJetstream();
        PropertyChecks.inRange(errors, "jetstream.replicas", js.getReplicas(), 1, 5);
        PropertyChecks.atLeast(errors, "jetstream.maxOutstandingPublishes", js.getMaxOutstandingPublishes(), 1);
        PropertyChecks.atLeast(errors, "jetstream.publishTimeout", js.getPublishTimeout(), Duration.ofMillis(1));
        PropertyChecks.atLeast(errors, "jetstream.latePubAckWindow", js.getLatePubAckWindow(), Duration.ofSeconds(1));
        PropertyChecks.atLeast(errors, "jetstream.healthRefreshInterval", js.getHealthRefreshInterval(),
                Duration.ofMillis(100));
        Consumer consumer = js.getConsumer();
        PropertyChecks.atLeast(errors, "jetstream.consumer.maxDeliver", consumer.getMaxDeliver(), 1);
        PropertyChecks.atLeast(errors, "jetstream.consumer.maxAckPending", consumer.getMaxAckPending(), 1);
        PropertyChecks.atLeast(errors, "jetstream.consumer.nakDelay", consumer.getNakDelay(), Duration.ZERO);
        PropertyChecks.atLeast(errors, "jetstream.consumer.batchSize", consumer.getBatchSize(), 1);
        builtIn(errors, "jetstream.routing", js.getRouting(), StreamSpec.routing(),
                List.of("max-age", "max-bytes", "duplicate-window"));
        builtIn(errors, "jetstream.heartbeat", js.getHeartbeat(), StreamSpec.heartbeat(),
                List.of("max-age", "max-msgs-per-subject"));
        builtIn(errors, "jetstream.dlq", js.getDlq(), StreamSpec.deadLetters(), List.of("max-msgs"));
    }

    /**
     * A built-in stream is ADR-007's: only the limits it always had may be set (routing:
     * max-age, max-bytes, duplicate-window; heartbeat: max-age, max-msgs-per-subject;
     * DLQ: max-msgs). Its subjects, retention, discard, storage, replicas and description
     * are fixed: an interest or work-queue retention, memory storage or a DLQ max-age
     * would let routed events or parked poison leave the stream unapplied.
     */
    private static void builtIn(Errors errors, String prefix, StreamSpec configured, StreamSpec builtIn,
            List<String> settable) {
        Map<String, Function<StreamSpec, Object>> fields = new LinkedHashMap<>();
        fields.put("subjects", StreamSpec::getSubjects);
        fields.put("retention", StreamSpec::getRetention);
        fields.put("discard", StreamSpec::getDiscard);
        fields.put("storage", StreamSpec::getStorage);
        fields.put("max-age", StreamSpec::getMaxAge);
        fields.put("max-bytes", StreamSpec::getMaxBytes);
        fields.put("max-msgs", StreamSpec::getMaxMsgs);
        fields.put("max-msgs-per-subject", StreamSpec::getMaxMsgsPerSubject);
        fields.put("duplicate-window", StreamSpec::getDuplicateWindow);
        fields.put("replicas", StreamSpec::getReplicas);
        fields.put("description", StreamSpec::getDescription);
        fields.forEach((name, value) -> {
            if (!settable.contains(name) && !Objects.equals(value.apply(builtIn), value.apply(configured))) {
                errors.rejectValue(prefix + "." + camelCase(name), "Fixed",
                        "is fixed for a built-in stream" + " (ADR-007): remove varpulis.nats." + prefix + "." + name
                                + ", expected " + value.apply(builtIn)
                                + (settable.isEmpty() ? "" : "; only " + String.join(", ", settable) + " may be set"));
            }
        });
    }

    private static String camelCase(String kebab) {
        StringBuilder camel = new StringBuilder();
        for (String part : kebab.split("-")) {
            camel.append(camel.isEmpty() ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return camel.toString();
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

    /** JetStream settings (ADR-007 defaults). */
    public static class JetStream {

        /**
         * Stream replicas: 1 on a single development server, 3 on a production cluster.
         */
        private int replicas = 1;

        /**
         * Most PubAcks one publisher may wait for at once. Pipelining confirmations keeps
         * throughput near the raw client's; a full window makes the publisher wait
         * (back-pressure) instead of buffering without bound.
         */
        private int maxOutstandingPublishes = 1024;

        /** How long a publish waits for its PubAck before the caller sees it failed. */
        private Duration publishTimeout = Duration.ofSeconds(5);

        /**
         * How long a PubAck that comes after the publish timeout is still awaited (the
         * connection's request cleanup interval): a message held in the reconnect buffer
         * or published during a leader election is often stored late, and is then counted
         * in {@code varpulis.events.published}. Beyond it a late PubAck is dropped.
         */
        private Duration latePubAckWindow = Duration.ofMinutes(2);

        /**
         * How often the {@code jetstream} health component asks the server about streams
         * and consumers, in the background: a health check answers from the last answer
         * at once, whatever NATS is doing.
         */
        private Duration healthRefreshInterval = Duration.ofSeconds(5);

        /**
         * Whether the application creates the streams it declares when they are absent
         * (never updates them).
         */
        private boolean provision = true;

        /**
         * The routing stream, {@code VARPULIS_ROUTING}: max_age 1 h, max_bytes 1 GiB,
         * duplicate_window 2 min.
         */
        private final StreamSpec routing = StreamSpec.routing();

        /**
         * The heartbeat stream, {@code VARPULIS_HEARTBEAT}: max_age 5 min,
         * max_msgs_per_subject 16.
         */
        private final StreamSpec heartbeat = StreamSpec.heartbeat();

        /** The dead-letter stream, {@code VARPULIS_DLQ}: max_msgs 100 000, no max_age. */
        private final StreamSpec dlq = StreamSpec.deadLetters();

        /**
         * Durable consumer settings, one consumer per route edge and the coordinator's
         * heartbeat consumer.
         */
        private final Consumer consumer = new Consumer();

        /**
         * More streams a service declares from configuration, by stream name, created if
         * absent like the defaults (for example the streams of the Stellar Control
         * layout).
         */
        private final Map<String, StreamSpec> streams = new LinkedHashMap<>();

        public int getReplicas() {
            return replicas;
        }

        public void setReplicas(int replicas) {
            this.replicas = replicas;
        }

        public int getMaxOutstandingPublishes() {
            return maxOutstandingPublishes;
        }

        public void setMaxOutstandingPublishes(int maxOutstandingPublishes) {
            this.maxOutstandingPublishes = maxOutstandingPublishes;
        }

        public Duration getPublishTimeout() {
            return publishTimeout;
        }

        public void setPublishTimeout(Duration publishTimeout) {
            this.publishTimeout = publishTimeout;
        }

        public Duration getLatePubAckWindow() {
            return latePubAckWindow;
        }

        public void setLatePubAckWindow(Duration latePubAckWindow) {
            this.latePubAckWindow = latePubAckWindow;
        }

        public Duration getHealthRefreshInterval() {
            return healthRefreshInterval;
        }

        public void setHealthRefreshInterval(Duration healthRefreshInterval) {
            this.healthRefreshInterval = healthRefreshInterval;
        }

        public boolean isProvision() {
            return provision;
        }

        public void setProvision(boolean provision) {
            this.provision = provision;
        }

        public StreamSpec getRouting() {
            return routing;
        }

        public StreamSpec getHeartbeat() {
            return heartbeat;
        }

        public StreamSpec getDlq() {
            return dlq;
        }

        public Consumer getConsumer() {
            return consumer;
        }

        public Map<String, StreamSpec> getStreams() {
            return streams;
        }

    }

    /** Durable pull consumer settings (ADR-007). */
    public static class Consumer {

        /** How long the server waits for an ack before it redelivers. */
        private Duration ackWait = Duration.ofSeconds(30);

        /**
         * Deliveries before an event is poison: enough for a transient failure, few
         * enough not to loop forever.
         */
        private int maxDeliver = 5;

        /** Unacked messages one consumer may hold at once. */
        private int maxAckPending = 1024;

        /**
         * How long a durable survives with nobody pulling: a deleted route edge does not
         * hold messages forever, and seven days is far longer than the routing max_age,
         * so live work is never reaped.
         */
        private Duration inactiveThreshold = Duration.ofDays(7);

        /**
         * Redelivery delay after a failed apply (a nak's delay; the consumer BackOff does
         * not apply to naks).
         */
        private Duration nakDelay = Duration.ofSeconds(2);

        /**
         * Messages requested per pull; capped by {@code max-ack-pending}. 500 is jnats'
         * default. A pulled message's ack_wait runs while it waits in the client for the
         * ones before it, so a batch must be applied within ack_wait: 500 leaves a
         * pipeline 60 ms per message at the default 30 s (256, the default before issue
         * 14: 117 ms, and about 6 % less routed-hop throughput). A consumer whose
         * pipeline is slower than half that logs a WARN naming the batch size that fits.
         */
        private int batchSize = 500;

        public Duration getAckWait() {
            return ackWait;
        }

        public void setAckWait(Duration ackWait) {
            this.ackWait = ackWait;
        }

        public int getMaxDeliver() {
            return maxDeliver;
        }

        public void setMaxDeliver(int maxDeliver) {
            this.maxDeliver = maxDeliver;
        }

        public int getMaxAckPending() {
            return maxAckPending;
        }

        public void setMaxAckPending(int maxAckPending) {
            this.maxAckPending = maxAckPending;
        }

        public Duration getInactiveThreshold() {
            return inactiveThreshold;
        }

        public void setInactiveThreshold(Duration inactiveThreshold) {
            this.inactiveThreshold = inactiveThreshold;
        }

        public Duration getNakDelay() {
            return nakDelay;
        }

        public void setNakDelay(Duration nakDelay) {
            this.nakDelay = nakDelay;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

    }

    /**
     * A stream as configuration describes it: one of the three built-in streams
     * ({@code varpulis.nats.jetstream.routing}, {@code heartbeat}, {@code dlq},
     * pre-filled with ADR-007's values) or one a service declares under
     * {@code varpulis.nats.jetstream.streams.<name>.*}.
     */
    public static class StreamSpec {

        /**
         * @return {@code VARPULIS_ROUTING}'s ADR-007 settings: one hour covers the
         * pipeline that was down for an hour (replaying a days-old backlog into time
         * windows would manufacture alerts, not recover them); 1 GiB so a wedged consumer
         * cannot fill the disk (discard Old drops the oldest first); a 2-minute duplicate
         * window covers a publisher's retry after a crash
         */
        public static StreamSpec routing() {
            StreamSpec routing = builtIn(Subjects.PIPELINE_ROOT + ".>",
                    "Varpulis routed events between pipelines (ADR-007)");
            routing.setMaxAge(Duration.ofHours(1));
            routing.setMaxBytes(DataSize.ofGigabytes(1));
            routing.setDuplicateWindow(Duration.ofMinutes(2));
            return routing;
        }

        /**
         * @return {@code VARPULIS_HEARTBEAT}'s ADR-007 settings: five minutes, well above
         * any heartbeat-timeout, so a restarted coordinator still finds the evidence it
         * needs; 16 per worker subject, the most a restarted coordinator replays per
         * worker
         */
        public static StreamSpec heartbeat() {
            StreamSpec heartbeat = builtIn(Subjects.HEARTBEAT_ROOT + ".>", "Varpulis worker heartbeats (ADR-007)");
            heartbeat.setMaxAge(Duration.ofMinutes(5));
            heartbeat.setMaxMsgsPerSubject(16L);
            return heartbeat;
        }

        /**
         * @return {@code VARPULIS_DLQ}'s ADR-007 settings: 100 000 parked events and no
         * max_age, because last week's poison event is exactly what an operator looks
         * for; a full DLQ is itself a signal (discard Old)
         */
        public static StreamSpec deadLetters() {
            StreamSpec dlq = builtIn("varpulis.dlq.>", "Varpulis parked events with their death envelopes (ADR-007)");
            dlq.setMaxMsgs(100_000L);
            return dlq;
        }

        private static StreamSpec builtIn(String subject, String description) {
            StreamSpec spec = new StreamSpec();
            spec.setSubjects(new ArrayList<>(List.of(subject)));
            spec.setDescription(description);
            return spec;
        }

        /** Subjects the stream captures (wildcards allowed); required. */
        private List<String> subjects = new ArrayList<>();

        /** Retention policy: limits, interest or work-queue. */
        private RetentionPolicy retention = RetentionPolicy.Limits;

        /**
         * What a full stream discards: old (the oldest messages) or new (refuses the
         * publish).
         */
        private DiscardPolicy discard = DiscardPolicy.Old;

        /** Storage: file or memory. */
        private StorageType storage = StorageType.File;

        /** Age after which messages are removed; unlimited when unset. */
        private Duration maxAge;

        /** Byte ceiling; unlimited when unset. */
        private DataSize maxBytes;

        /** Message-count ceiling; unlimited when unset. */
        private Long maxMsgs;

        /** Messages kept per subject; unlimited when unset. */
        private Long maxMsgsPerSubject;

        /**
         * Window of {@code Nats-Msg-Id} de-duplication; the server's default (2 min) when
         * unset.
         */
        private Duration duplicateWindow;

        /** Replicas; {@code varpulis.nats.jetstream.replicas} when unset. */
        private Integer replicas;

        /** Description shown in the server's stream info. */
        private String description;

        public List<String> getSubjects() {
            return subjects;
        }

        public void setSubjects(List<String> subjects) {
            this.subjects = subjects;
        }

        public RetentionPolicy getRetention() {
            return retention;
        }

        public void setRetention(RetentionPolicy retention) {
            this.retention = retention;
        }

        public DiscardPolicy getDiscard() {
            return discard;
        }

        public void setDiscard(DiscardPolicy discard) {
            this.discard = discard;
        }

        public StorageType getStorage() {
            return storage;
        }

        public void setStorage(StorageType storage) {
            this.storage = storage;
        }

        public Duration getMaxAge() {
            return maxAge;
        }

        public void setMaxAge(Duration maxAge) {
            this.maxAge = maxAge;
        }

        public DataSize getMaxBytes() {
            return maxBytes;
        }

        public void setMaxBytes(DataSize maxBytes) {
            this.maxBytes = maxBytes;
        }

        public Long getMaxMsgs() {
            return maxMsgs;
        }

        public void setMaxMsgs(Long maxMsgs) {
            this.maxMsgs = maxMsgs;
        }

        public Long getMaxMsgsPerSubject() {
            return maxMsgsPerSubject;
        }

        public void setMaxMsgsPerSubject(Long maxMsgsPerSubject) {
            this.maxMsgsPerSubject = maxMsgsPerSubject;
        }

        public Duration getDuplicateWindow() {
            return duplicateWindow;
        }

        public void setDuplicateWindow(Duration duplicateWindow) {
            this.duplicateWindow = duplicateWindow;
        }

        public Integer getReplicas() {
            return replicas;
        }

        public void setReplicas(Integer replicas) {
            this.replicas = replicas;
        }

        public String getDescription() {
            return description;
        }

        public void setDescription(String description) {
            this.description = description;
        }

    }

}
