package io.varpulis.smoke;

import io.varpulis.autoconfigure.JetStreamConsumerProperties;
import io.varpulis.autoconfigure.JetStreamPublishProperties;
import io.varpulis.autoconfigure.JetStreamStreamsProperties;
import io.varpulis.autoconfigure.NatsConnectionProperties;
import io.varpulis.nats.ConnectionSettings;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * The node's {@code varpulis.nats.*} settings, bound outside a Spring context as the
 * node's auto-configuration binds them: the smoke test connects, declares the streams and
 * publishes exactly as a node would.
 *
 * @param connection {@code varpulis.nats.*}
 * @param publishing {@code varpulis.nats.jetstream.*}'s PubAck window and timeouts
 * @param consumer {@code varpulis.nats.jetstream.consumer.*}
 * @param streams {@code varpulis.nats.jetstream.*}'s streams
 */
record NatsSettings(NatsConnectionProperties connection, JetStreamPublishProperties publishing,
        JetStreamConsumerProperties consumer, JetStreamStreamsProperties streams) {

    /**
     * @param binder the command's arguments and environment
     * @return the settings, each class's defaults where nothing is set
     */
    static NatsSettings bind(Binder binder) {
        return new NatsSettings(
                binder.bind("varpulis.nats", NatsConnectionProperties.class).orElseGet(NatsConnectionProperties::new),
                binder.bind("varpulis.nats.jetstream", JetStreamPublishProperties.class)
                    .orElseGet(JetStreamPublishProperties::new),
                binder.bind("varpulis.nats.jetstream.consumer", JetStreamConsumerProperties.class)
                    .orElseGet(JetStreamConsumerProperties::new),
                binder.bind("varpulis.nats.jetstream", JetStreamStreamsProperties.class)
                    .orElseGet(JetStreamStreamsProperties::new));
    }

    /**
     * @return the connection's timeouts and inbox, as the node connects with them
     */
    ConnectionSettings connectionSettings() {
        return connection.toSettings(publishing.getLatePubAckWindow());
    }

}
