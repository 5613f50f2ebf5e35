package io.varpulis.transport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Locale;

/**
 * Watches how long a durable consumer's handler takes per message, and warns when a pulled batch would outlast half
 * of the consumer's ack_wait. A pulled message's ack_wait runs from the moment the server sends it, while it waits in
 * the client behind the rest of its batch; a pipeline slower than {@code ack_wait / batch-size} per message therefore
 * has the end of a full batch redelivered before it is applied, spending its max_deliver budget (ADR-007's bounded
 * redelivery) on its own slowness. The warning names the fix: a smaller {@code batch-size} or a longer
 * {@code ack-wait}.
 * <p>One message in {@value #SAMPLE_EVERY} is timed, on the consumer's dispatching thread (jnats hands one
 * consumer's messages to its handler one at a time): two clock reads per {@value #SAMPLE_EVERY} messages. The mean
 * of the timed ones is checked every {@value #WINDOW} of them, or after {@value #EARLY_SAMPLES} once they add up to a
 * 64th of ack_wait (about an eighth, counting the untimed ones). It warns after {@value #SLOW_CHECKS} slow checks in
 * a row, so that one stall (a GC pause, a broker election) does not; it says so again, at INFO, when the pace is
 * back under a quarter of ack_wait per batch, and warns again if it slows down again.
 */
final class PullBatchPace {

    /** One message in this many is timed. */
    static final int SAMPLE_EVERY = 8;

    /** Timed messages per check. */
    static final int WINDOW = 16;

    /** Fewest timed messages an early check is made on. */
    static final int EARLY_SAMPLES = 4;

    /** Slow checks in a row before the warning. */
    static final int SLOW_CHECKS = 2;

    private static final Logger log = LoggerFactory.getLogger(PullBatchPace.class);

    private final String durable;
    private final int batchSize;
    private final Duration ackWait;
    private final long halfAckWaitNanos;
    private long handledNanos;
    private int handled;
    private int seen;
    private int slowInARow;
    private int checks;
    private boolean warned;

    /**
     * @param durable   the consumer's durable name (for the log)
     * @param batchSize most messages the client holds at once: the pull batch, capped by the server's max_ack_pending
     * @param ackWait   the server's ack_wait of the consumer; zero or negative turns the watch off
     */
    PullBatchPace(String durable, int batchSize, Duration ackWait) {
        this.durable = durable;
        this.batchSize = batchSize;
        this.ackWait = ackWait;
        this.halfAckWaitNanos = ackWait.isNegative() || ackWait.isZero() ? Long.MAX_VALUE : ackWait.toNanos() / 2;
    }

    /**
     * @return whether the handler's next message is to be timed and given to {@link #handled}
     */
    boolean timeNext() {
        return ++seen % SAMPLE_EVERY == 0;
    }

    /**
     * @param nanos how long the handler took on one timed message, ns
     * @return whether this message ended a check that found the pace too slow for the batch (for tests)
     */
    boolean handled(long nanos) {
        handledNanos += nanos;
        ++handled;
        if (handled < WINDOW && (handled < EARLY_SAMPLES || handledNanos < halfAckWaitNanos / (4 * SAMPLE_EVERY))) {
            return false;
        }
        long mean = handledNanos / handled;
        handledNanos = 0;
        handled = 0;
        return check(mean);
    }

    /**
     * @return how many checks ran (for tests)
     */
    int checks() {
        return checks;
    }

    /**
     * @return whether the warning is standing (for tests)
     */
    boolean warned() {
        return warned;
    }

    private boolean check(long meanNanos) {
        checks++;
        double batchNanos = (double) meanNanos * batchSize;
        boolean slow = batchNanos > halfAckWaitNanos;
        slowInARow = slow ? slowInARow + 1 : 0;
        if (slowInARow >= SLOW_CHECKS && !warned) {
            warned = true;
            log.warn("consumer {}: its handler takes {} ms per message (the pipeline's apply, and any wait for a "
                            + "slot in the publish window of its outputs), so the last of a full pulled batch of {} "
                            + "would wait about {} ms in this client, more than half of the {} ms ack_wait: messages "
                            + "at the end of a batch may be redelivered before they are applied and spend their "
                            + "max_deliver. Set varpulis.nats.jetstream.consumer.batch-size to {} or less, or raise "
                            + "ack-wait", durable, millis(meanNanos), batchSize, Math.round(batchNanos / 1e6),
                    ackWait.toMillis(), Math.max(1, halfAckWaitNanos / Math.max(1, meanNanos)));
        } else if (warned && batchNanos < halfAckWaitNanos / 2.0) {
            warned = false;
            log.info("consumer {}: its handler takes {} ms per message again, a pulled batch of {} well within "
                    + "the {} ms ack_wait", durable, millis(meanNanos), batchSize, ackWait.toMillis());
        }
        return slow;
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }
}
