package io.varpulis.autoconfigure;

import io.varpulis.jetstream.JetStreamSettings;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.nats.NatsProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Turns {@code varpulis.nats.jetstream.streams.<name>.*} entries into declarations, with
 * errors that name the property.
 */
final class ConfiguredStreams {

    private ConfiguredStreams() {
    }

    static StreamDeclaration declaration(String name, NatsProperties.StreamSpec spec, int defaultReplicas) {
        String prefix = "varpulis.nats.jetstream.streams." + name;
        if (!name.matches("[A-Za-z0-9_-]+")) {
            throw new InvalidConfigurationPropertyValueException(prefix, name,
                    "A stream name may only hold letters, digits, '-' and '_'.");
        }
        if (spec.getSubjects() == null || spec.getSubjects().isEmpty()) {
            throw new InvalidConfigurationPropertyValueException(prefix + ".subjects", null, "Stream " + name
                    + " needs at least one subject, for example " + name.toLowerCase(java.util.Locale.ROOT) + ".>");
        }
        return JetStreamSettings.stream(name, spec, defaultReplicas);
    }

}
