package io.varpulis.autoconfigure;

import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.support.PropertyChecks;
import org.springframework.boot.context.properties.ConfigurationProperties;
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
 * The streams the application declares, {@code varpulis.nats.jetstream.*}: their
 * replicas, whether they are created when absent, the three built-in streams
 * ({@code routing}, {@code heartbeat}, {@code dlq}: entries of the one stream model,
 * pre-filled with ADR-007's values from {@link VarpulisJetStream}, of which only the
 * limits each always had may be set) and a service's own ({@code streams.<name>.*}).
 * Domain code receives them as {@link StreamDeclaration}s.
 */
@ConfigurationProperties(JetStreamStreamsProperties.PREFIX)
public class JetStreamStreamsProperties implements Validator {

    static final String PREFIX = "varpulis.nats.jetstream";

    /**
     * Stream replicas: 1 on a single development server, 3 on a production cluster.
     */
    private int replicas = 1;

    /**
     * Whether the application creates the streams it declares when they are absent (never
     * updates them).
     */
    private boolean provision = true;

    /**
     * How often the node asks the servers whether what it declared (streams, key-value
     * buckets, durable consumers in use) is still there, and whether a stream went back;
     * what is gone is said at ERROR, counted (varpulis.jetstream.losses) and declared
     * again (when provisioning is on). 0 never asks. A server power loss without
     * sync_interval: always can take them with it (issue 43).
     */
    private Duration declarationsCheckInterval = Duration.ofSeconds(3);

    /**
     * The routing stream, {@code VARPULIS_ROUTING}: max_age 1 h, max_bytes 1 GiB,
     * duplicate_window 2 min.
     */
    private final StreamSpec routing = StreamSpec.of(VarpulisJetStream.routingStream(1));

    /**
     * The heartbeat stream, {@code VARPULIS_HEARTBEAT}: max_age 5 min,
     * max_msgs_per_subject 16.
     */
    private final StreamSpec heartbeat = StreamSpec.of(VarpulisJetStream.heartbeatStream(1));

    /** The dead-letter stream, {@code VARPULIS_DLQ}: max_msgs 100 000, no max_age. */
    private final StreamSpec dlq = StreamSpec.of(VarpulisJetStream.deadLetterStream(1));

    /**
     * More streams a service declares from configuration, by stream name, created if
     * absent like the defaults (for example the streams of the Stellar Control layout).
     */
    private final Map<String, StreamSpec> streams = new LinkedHashMap<>();

    public int getReplicas() {
        return replicas;
    }

    public void setReplicas(int replicas) {
        this.replicas = replicas;
    }

    public boolean isProvision() {
        return provision;
    }

    public void setProvision(boolean provision) {
        this.provision = provision;
    }

    public Duration getDeclarationsCheckInterval() {
        return declarationsCheckInterval;
    }

    public void setDeclarationsCheckInterval(Duration declarationsCheckInterval) {
        this.declarationsCheckInterval = declarationsCheckInterval;
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

    public Map<String, StreamSpec> getStreams() {
        return streams;
    }

    /**
     * @return {@code VARPULIS_ROUTING} as configured
     */
    public StreamDeclaration routingStream() {
        return ConfiguredStreams.stream(VarpulisJetStream.ROUTING_STREAM, routing, replicas);
    }

    /**
     * @return {@code VARPULIS_HEARTBEAT} as configured
     */
    public StreamDeclaration heartbeatStream() {
        return ConfiguredStreams.stream(VarpulisJetStream.HEARTBEAT_STREAM, heartbeat, replicas);
    }

    /**
     * @return {@code VARPULIS_DLQ} as configured
     */
    public StreamDeclaration deadLetterStream() {
        return ConfiguredStreams.stream(VarpulisJetStream.DLQ_STREAM, dlq, replicas);
    }

    /**
     * @return the three built-in streams as configured
     */
    public List<StreamDeclaration> builtInStreams() {
        return List.of(routingStream(), heartbeatStream(), deadLetterStream());
    }

    /**
     * @return the streams of {@code streams.<name>.*}
     * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
     * naming the property of a bad name or of a stream without subjects
     */
    public List<StreamDeclaration> configuredStreams() {
        List<StreamDeclaration> declarations = new ArrayList<>();
        streams.forEach((name, spec) -> declarations.add(ConfiguredStreams.declaration(name, spec, replicas)));
        return declarations;
    }

    /**
     * @param type a class being bound
     * @return whether it is this class, which validates itself while Spring Boot binds it
     */
    @Override
    public boolean supports(Class<?> type) {
        return JetStreamStreamsProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks the replicas (1 to 5) and that a built-in stream sets only its settable
     * limits; Spring Boot fails startup with each violation, naming the property, its
     * value and the fix.
     * @param target the bound properties
     * @param errors where violations go
     */
    @Override
    public void validate(Object target, Errors errors) {
        JetStreamStreamsProperties js = (JetStreamStreamsProperties) target;
        PropertyChecks.inRange(errors, "replicas", js.getReplicas(), 1, 5);
        PropertyChecks.atLeast(errors, "declarations-check-interval", js.getDeclarationsCheckInterval(), Duration.ZERO);
        builtIn(errors, "routing", js.getRouting(), StreamSpec.of(VarpulisJetStream.routingStream(1)),
                List.of("max-age", "max-bytes", "duplicate-window"));
        builtIn(errors, "heartbeat", js.getHeartbeat(), StreamSpec.of(VarpulisJetStream.heartbeatStream(1)),
                List.of("max-age", "max-msgs-per-subject"));
        builtIn(errors, "dlq", js.getDlq(), StreamSpec.of(VarpulisJetStream.deadLetterStream(1)), List.of("max-msgs"));
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
                        "is fixed for a built-in stream (ADR-007): remove " + PREFIX + "." + prefix + "." + name
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

    /**
     * A stream as configuration describes it: one of the three built-in streams
     * ({@code varpulis.nats.jetstream.routing}, {@code heartbeat}, {@code dlq},
     * pre-filled with ADR-007's values) or one a service declares under
     * {@code varpulis.nats.jetstream.streams.<name>.*}.
     */
    public static class StreamSpec {

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

        /**
         * @param declaration a built-in stream
         * @return its settings as configuration describes them, replicas left unset (so
         * that {@code varpulis.nats.jetstream.replicas} applies)
         */
        static StreamSpec of(StreamDeclaration declaration) {
            StreamConfiguration configuration = declaration.configuration();
            StreamSpec spec = new StreamSpec();
            spec.setSubjects(new ArrayList<>(configuration.getSubjects()));
            spec.setRetention(configuration.getRetentionPolicy());
            spec.setDiscard(configuration.getDiscardPolicy());
            spec.setStorage(configuration.getStorageType());
            spec.setMaxAge(positive(configuration.getMaxAge()));
            spec.setMaxBytes(configuration.getMaxBytes() < 0 ? null : DataSize.ofBytes(configuration.getMaxBytes()));
            spec.setMaxMsgs(configuration.getMaxMsgs() < 0 ? null : configuration.getMaxMsgs());
            spec.setMaxMsgsPerSubject(
                    configuration.getMaxMsgsPerSubject() < 0 ? null : configuration.getMaxMsgsPerSubject());
            spec.setDuplicateWindow(positive(configuration.getDuplicateWindow()));
            spec.setDescription(configuration.getDescription());
            return spec;
        }

        /** jnats says "unset" with a zero duration. */
        private static Duration positive(Duration duration) {
            return duration == null || duration.isZero() ? null : duration;
        }

    }

}
