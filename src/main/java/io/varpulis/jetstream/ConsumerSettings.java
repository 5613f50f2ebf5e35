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
 * @param nakDelay redelivery delay after a failed apply
 * @param batchSize messages requested per pull
 */
public record ConsumerSettings(Duration ackWait, int maxDeliver, int maxAckPending, Duration inactiveThreshold,
        Duration nakDelay, int batchSize) {

    /**
     * @return ADR-007's defaults: ack_wait 30 s, max_deliver 5, max_ack_pending 1024,
     * inactive_threshold 7 days, a 2 s nak delay, batches of 500, the defaults of
     * {@code varpulis.nats.jetstream.consumer.*} (a test holds them equal), whose Javadoc
     * gives the reasons
     */
    public static ConsumerSettings defaults() {
        return new ConsumerSettings(Duration.ofSeconds(30), 5, 1024, Duration.ofDays(7), Duration.ofSeconds(2), 500);
    }

}
