package io.varpulis.transport;

import io.varpulis.nats.NatsProperties;

import java.time.Duration;

/**
 * Tuning of a {@link ClusterTransport}.
 *
 * @param maxOutstandingPublishes most PubAcks awaited at once (JetStream)
 * @param publishTimeout how long a publish waits for its PubAck, and for a slot in a full
 * window
 * @param batchSize messages requested per pull (JetStream)
 */
public record TransportSettings(int maxOutstandingPublishes, Duration publishTimeout, int batchSize) {

    /**
     * @throws IllegalArgumentException when a number is not positive
     */
    public TransportSettings {
        if (maxOutstandingPublishes < 1 || batchSize < 1) {
            throw new IllegalArgumentException("max outstanding publishes and batch size must be at least 1");
        }
    }

    /**
     * @param jetStream the {@code varpulis.nats.jetstream.*} settings
     * @return the settings they describe
     */
    public static TransportSettings from(NatsProperties.JetStream jetStream) {
        NatsProperties.Consumer consumer = jetStream.getConsumer();
        // A pull of more than max_ack_pending would only wait for acks: the batch is
        // capped by it.
        int batchSize = consumer.getMaxAckPending() > 0 ? Math.min(consumer.getBatchSize(), consumer.getMaxAckPending())
                : consumer.getBatchSize();
        return new TransportSettings(jetStream.getMaxOutstandingPublishes(), jetStream.getPublishTimeout(), batchSize);
    }

    /**
     * @return ADR-007's defaults: 1024 outstanding PubAcks, 5 s publish timeout, batches
     * of 500
     */
    public static TransportSettings defaults() {
        return from(new NatsProperties.JetStream());
    }
}
