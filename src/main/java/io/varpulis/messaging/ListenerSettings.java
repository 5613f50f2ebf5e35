package io.varpulis.messaging;

import io.varpulis.jetstream.NakBackOff;

import java.time.Duration;

/**
 * What an operator set for one {@link NatsListener} id
 * ({@code varpulis.nats.listeners.<id>.*}); each value, when not {@code null}, wins over
 * the annotation's.
 *
 * @param subject the filter subject
 * @param stream the stream the consumer is created on
 * @param concurrency threads pulling and handling deliveries (1 or more)
 * @param maxDeliver the consumer's max_deliver
 * @param maxAckPending the consumer's max_ack_pending
 * @param sendTo the subject a return value is published to
 * @param backOff the nak back-off's values
 * @param applyTimeout the longest an apply may take
 * @param autoStartup whether it starts with the context
 * @param idleEventInterval after how long without a delivery it says it is idle
 * @param batchSize a batch listener's most deliveries per call
 */
public record ListenerSettings(String subject, String stream, Integer concurrency, Integer maxDeliver,
        Integer maxAckPending, String sendTo, BackOff backOff, Duration applyTimeout, Boolean autoStartup,
        Duration idleEventInterval, Integer batchSize) {

    /** No override: the annotation says everything. */
    public static final ListenerSettings NONE = new ListenerSettings(null, null, null, null, null, null, BackOff.NONE,
            null, null, null, null);

    /**
     * A listener's nak back-off values, each {@code null} when unset.
     *
     * @param delay the first delay
     * @param multiplier the multiplier
     * @param maxDelay the longest delay
     * @param jitter the jitter
     */
    public record BackOff(Duration delay, Double multiplier, Duration maxDelay, Duration jitter) {

        /** Nothing set. */
        public static final BackOff NONE = new BackOff(null, null, null, null);

        /**
         * @param base the back-off to change
         * @return {@code base} with the values set here
         */
        NakBackOff applyTo(NakBackOff base) {
            return base.with(delay, multiplier, maxDelay, jitter);
        }

    }

}
