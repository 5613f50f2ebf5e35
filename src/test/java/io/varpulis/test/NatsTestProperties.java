package io.varpulis.test;

import io.varpulis.autoconfigure.JetStreamConsumerProperties;
import io.varpulis.autoconfigure.JetStreamPublishProperties;
import io.varpulis.autoconfigure.JetStreamStreamsProperties;
import io.varpulis.autoconfigure.NatsConnectionProperties;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.nats.ConnectionSettings;
import io.varpulis.transport.TransportSettings;

import java.util.List;

/**
 * The {@code varpulis.nats.*} properties classes a test sets by hand, with their
 * defaults, and the settings records the domain receives from them, mapped as the
 * auto-configuration maps them.
 */
public final class NatsTestProperties {

    private final NatsConnectionProperties connection = new NatsConnectionProperties();

    private final JetStreamPublishProperties publishing = new JetStreamPublishProperties();

    private final JetStreamConsumerProperties consumer = new JetStreamConsumerProperties();

    private final JetStreamStreamsProperties streams = new JetStreamStreamsProperties();

    /**
     * @return {@code varpulis.nats.*}
     */
    public NatsConnectionProperties connection() {
        return connection;
    }

    /**
     * @return {@code varpulis.nats.jetstream.*}'s PubAck window and timeouts
     */
    public JetStreamPublishProperties publishing() {
        return publishing;
    }

    /**
     * @return {@code varpulis.nats.jetstream.consumer.*}
     */
    public JetStreamConsumerProperties consumer() {
        return consumer;
    }

    /**
     * @return {@code varpulis.nats.jetstream.*}'s streams
     */
    public JetStreamStreamsProperties streams() {
        return streams;
    }

    /**
     * @return the connection's settings
     */
    public ConnectionSettings connectionSettings() {
        return connection.toSettings(publishing.getLatePubAckWindow());
    }

    /**
     * @return the consumers' settings
     */
    public ConsumerSettings consumerSettings() {
        return consumer.toSettings();
    }

    /**
     * @return the transport's settings
     */
    public TransportSettings transportSettings() {
        return publishing.toSettings(consumer);
    }

    /**
     * @return the three built-in streams as configured
     */
    public List<StreamDeclaration> builtInStreams() {
        return streams.builtInStreams();
    }

}
