package io.varpulis.pipeline;

import java.time.Duration;

/**
 * How long a state waits before it tries its unconfirmed writes again (SPEC section 9: a
 * slow disk is slowness, not failure): 50 ms, doubling up to 2 s, and back to 50 ms only
 * once the whole backlog a mended chain sent again is confirmed. A server whose fsync is
 * slow times the writes out again and again; without the doubling, and with a reset after
 * every mended chain, a writer sent its whole backlog again every 100 ms (issue 25, item
 * 3: 183 580 publishes in one run); with a reset on any confirmed write, the first writes
 * sent again were stored before the rest timed out, so each cycle started over at 50 ms
 * and the backlog was still sent again about every PubAck timeout. Each retry is counted
 * ({@code varpulis.state.write.retries}). Thread-safe.
 */
public final class StateWriteBackoff {

    /** The first wait: a lost PubAck or a leader election is usually over by then. */
    static final Duration FIRST = Duration.ofMillis(50);

    /**
     * The longest wait: a state that is still being written waits at most this long for
     * the server to catch up.
     */
    static final Duration MAX = Duration.ofSeconds(2);

    private final Runnable retried;

    private long nextMillis = FIRST.toMillis();

    // The last write a mended chain sent again: its confirmation (in chain order, so all
    // before it too) resets.
    private Object lastResent;

    /**
     * @param retried counts one retry (the {@code varpulis.state.write.retries} counter
     * of the pipeline)
     */
    public StateWriteBackoff(Runnable retried) {
        this.retried = retried;
    }

    /**
     * @return a backoff whose retries are not counted (a state opened outside a worker)
     */
    public static StateWriteBackoff uncounted() {
        return new StateWriteBackoff(() -> {
        });
    }

    /**
     * Counts a retry and says when to make it.
     * @return the wait before this retry, in milliseconds: double the previous one, at
     * most {@link #MAX}
     */
    public synchronized long nextRetryMillis() {
        retried.run();
        long wait = nextMillis;
        nextMillis = Math.min(MAX.toMillis(), nextMillis * 2);
        return wait;
    }

    /**
     * A chain was mended: the backoff starts over once every write it sent again is
     * confirmed.
     * @param lastResent the last of the writes sent again, or {@code null} when all were
     * found stored (the backoff starts over now)
     */
    public synchronized void mended(Object lastResent) {
        this.lastResent = lastResent;
        if (lastResent == null) {
            nextMillis = FIRST.toMillis();
        }
    }

    /**
     * A write was confirmed, in chain order: when it is the last one a mended chain sent
     * again, the server took the whole backlog and the next failure waits {@link #FIRST}
     * again.
     * @param write the confirmed write, the same object given to {@link #mended(Object)}
     */
    public synchronized void confirmed(Object write) {
        if (write == lastResent) {
            lastResent = null;
            nextMillis = FIRST.toMillis();
        }
    }

}
