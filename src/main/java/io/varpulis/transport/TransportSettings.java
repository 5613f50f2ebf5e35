package io.varpulis.transport;

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
     * @return ADR-007's defaults: 1024 outstanding PubAcks, 5 s publish timeout, batches
     * of 500, the defaults of {@code varpulis.nats.jetstream.*} (a test holds them
     * equal), whose Javadoc gives the reasons
     */
    public static TransportSettings defaults() {
        return new TransportSettings(1024, Duration.ofSeconds(5), 500);
    }
}
