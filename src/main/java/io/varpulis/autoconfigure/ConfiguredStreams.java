package io.varpulis.autoconfigure;

import io.nats.client.api.StreamConfiguration;
import io.varpulis.autoconfigure.JetStreamStreamsProperties.StreamSpec;
import io.varpulis.jetstream.StreamDeclaration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.util.Locale;

/**
 * Turns stream entries of {@code varpulis.nats.jetstream.*} into declarations: the
 * built-in streams and those of {@code streams.<name>.*}, the latter with errors that
 * name the property.
 */
final class ConfiguredStreams {

    private ConfiguredStreams() {
    }

    static StreamDeclaration declaration(String name, StreamSpec spec, int defaultReplicas) {
        String prefix = JetStreamStreamsProperties.PREFIX + ".streams." + name;
        if (!name.matches("[A-Za-z0-9_-]+")) {
            throw new InvalidConfigurationPropertyValueException(prefix, name,
                    "A stream name may only hold letters, digits, '-' and '_'.");
        }
        if (spec.getSubjects() == null || spec.getSubjects().isEmpty()) {
            throw new InvalidConfigurationPropertyValueException(prefix + ".subjects", null, "Stream " + name
                    + " needs at least one subject, for example " + name.toLowerCase(Locale.ROOT) + ".>");
        }
        return stream(name, spec, defaultReplicas);
    }

    /**
     * @throws IllegalArgumentException when the spec has no subjects
     */
    static StreamDeclaration stream(String name, StreamSpec spec, int defaultReplicas) {
        if (spec.getSubjects() == null || spec.getSubjects().isEmpty()) {
            throw new IllegalArgumentException("stream " + name + " declares no subjects");
        }
        StreamConfiguration.Builder b = StreamConfiguration.builder()
            .name(name)
            .subjects(spec.getSubjects())
            .retentionPolicy(spec.getRetention())
            .discardPolicy(spec.getDiscard())
            .storageType(spec.getStorage())
            .replicas(spec.getReplicas() == null ? defaultReplicas : spec.getReplicas())
            .description(spec.getDescription());
        if (spec.getMaxAge() != null) {
            b.maxAge(spec.getMaxAge());
        }
        if (spec.getMaxBytes() != null) {
            b.maxBytes(spec.getMaxBytes().toBytes());
        }
        if (spec.getMaxMsgs() != null) {
            b.maxMessages(spec.getMaxMsgs());
        }
        if (spec.getMaxMsgsPerSubject() != null) {
            b.maxMessagesPerSubject(spec.getMaxMsgsPerSubject());
        }
        if (spec.getDuplicateWindow() != null) {
            b.duplicateWindow(spec.getDuplicateWindow());
        }
        return new StreamDeclaration(b.build());
    }

}
