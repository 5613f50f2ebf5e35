package io.varpulis.jetstream;

import io.nats.client.api.StreamConfiguration;

/**
 * A stream the application needs, as a bean: {@link JetStreamAdmin} creates it when
 * absent and never updates it (ADR-007: an operator's hand-tuned limits survive an
 * upgrade). Like Spring Kafka's {@code NewTopic}.
 *
 * @param configuration the stream's configuration as it is created (name, subjects,
 * limits, replicas)
 */
public record StreamDeclaration(StreamConfiguration configuration) {

    /**
     * @return the stream name
     */
    public String name() {
        return configuration.getName();
    }
}
