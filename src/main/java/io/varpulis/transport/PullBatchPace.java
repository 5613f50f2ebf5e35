package io.varpulis.transport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Watches how long a durable consumer's handler takes per delivery, and warns when a pulled batch would outlast half
 * of the consumer's ack_wait. A pulled message's ack_wait runs from the moment the server sends it, while it waits in
 * the client behind the rest of its batch; a pipeline slower than {@code ack_wait / batch-size} per event therefore
 * has the end of each batch redelivered before it is applied, spending its max_deliver budget (ADR-007's bounded
 * redelivery) on its own slowness. The warning names the fix: a smaller {@code batch-size} or a longer
 * {@code ack-wait}.
 * <p>One delivery in {@value #SAMPLE_EVERY} is timed, on the consumer's dispatching thread (jnats hands one
 * consumer's messages to its handler one at a time): two clock reads per {@value #SAMPLE_EVERY} deliveries. The mean
 * is checked every {@value #WINDOW} timed deliveries, or sooner once they add up to a 64th of ack_wait (about an
 * eighth, counting the untimed ones).
 */
final class PullBatchPace {

    /** One delivery in this many is timed. */
    static final int SAMPLE_EVERY = 8;

    /** Timed deliveries per check. */
    static final int WINDOW = 16;

    private static final Logger log = LoggerFactory.getLogger(PullBatchPace.class);

    private final String durable;
    private final int batchSize;
    private final Duration ackWait;
    private final long halfAckWaitNanos;
    private long handledNanos;
    private int handled;
    private int seen;
    private boolean warned;

    /**
     * @param durable   the consumer's durable name (for the log)
     * @param batchSize messages requested per pull
     * @param ackWait   the server's ack_wait of the consumer; zero or negative turns the watch off
     */
    PullBatchPace(String durable, int batchSize, Duration ackWait) {
        this.durable = durable;
        this.batchSize = batchSize;
        this.ackWait = ackWait;
        this.halfAckWaitNanos = ackWait.isNegative() || ackWait.isZero() ? Long.MAX_VALUE : ackWait.toNanos() / 2;
    }

    /**
     * @return whether the handler's next delivery is to be timed and given to {@link #handled}
     */
    boolean timeNext() {
        return ++seen % SAMPLE_EVERY == 0;
    }

    /**
     * @param nanos how long the handler took on one timed delivery, ns
     * @return whether this delivery ended a window whose batches would outlast half of ack_wait (for tests)
     */
    boolean handled(long nanos) {
        handledNanos += nanos;
        if (++handled < WINDOW && handledNanos < halfAckWaitNanos / (4 * SAMPLE_EVERY)) {
            return false;
        }
        long mean = handledNanos / handled;
        handledNanos = 0;
        handled = 0;
        return check(mean);
    }

    private boolean check(long meanNanos) {
        double batchNanos = (double) meanNanos * batchSize;
        boolean slow = batchNanos > halfAckWaitNanos;
        if (slow && !warned) {
            warned = true;
            log.warn("consumer {}: its pipeline takes {} ms per event, so the last of a pulled batch of {} waits "
                            + "about {} ms in this client, more than half of ack_wait ({} ms): events at the end of a "
                            + "batch may be redelivered before they are applied and spend their max_deliver. Set "
                            + "varpulis.nats.jetstream.consumer.batch-size to {} or less, or raise ack-wait",
                    durable, String.format("%.1f", meanNanos / 1e6), batchSize, Math.round(batchNanos / 1e6),
                    ackWait.toMillis(), Math.max(1, halfAckWaitNanos / Math.max(1, meanNanos)));
        } else if (!slow && warned && batchNanos < halfAckWaitNanos / 2.0) {
            warned = false;
            log.info("consumer {}: its pipeline takes {} ms per event again, a pulled batch of {} well within "
                    + "ack_wait", durable, String.format("%.1f", meanNanos / 1e6), batchSize);
        }
        return slow;
    }
}
