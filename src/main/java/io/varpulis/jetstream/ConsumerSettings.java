package io.varpulis.jetstream;

import java.time.Duration;

/**
 * What every durable pull consumer runs with (ADR-007), as the domain receives it: the
 * route edges' consumers, the coordinator's heartbeat consumer and a service's listeners.
 *
 * @param ackWait how long the server waits for an ack before it redelivers
 * @param maxDeliver deliveries before an event is poison
 * @param maxAckPending unacked messages one consumer may hold at once
 * @param inactiveThreshold how long a durable survives with nobody pulling
 * @param nakBackOff the delays of a failed apply's naks, per attempt
 * @param applyTimeout the longest a delivery is kept in progress while it is applied
 * @param batchSize messages requested per pull
 */
public record ConsumerSettings(Duration ackWait, int maxDeliver, int maxAckPending, Duration inactiveThreshold,
        NakBackOff nakBackOff, Duration applyTimeout, int batchSize) {

    /** The default apply timeout: Kafka's {@code max.poll.interval.ms}, 5 minutes. */
    public static final Duration DEFAULT_APPLY_TIMEOUT = Duration.ofMinutes(5);

    /**
     * @return ADR-007's defaults: ack_wait 30 s, max_deliver 5, max_ack_pending 1024,
     * inactive_threshold 7 days, a fixed 2 s nak delay, a 5 minute apply timeout, batches
     * of 500, the defaults of {@code varpulis.nats.jetstream.consumer.*} (a test holds
     * them equal), whose Javadoc gives the reasons
     */
    public static ConsumerSettings defaults() {
        return new ConsumerSettings(Duration.ofSeconds(30), 5, 1024, Duration.ofDays(7), NakBackOff.DEFAULT,
                DEFAULT_APPLY_TIMEOUT, 500);
    }

}
