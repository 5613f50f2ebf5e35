package io.varpulis.pipeline;

import java.time.Duration;

/**
 * How long a state waits before it tries its unconfirmed writes again (SPEC section 9: a slow disk is slowness, not
 * failure): 50 ms, doubling up to 2 s, and back to 50 ms only once a write is confirmed. A server whose fsync is slow
 * times the writes out again and again; without the doubling, and with a reset after every mended chain, a writer
 * sent its whole backlog again every 100 ms (issue 25, item 3: 183 580 publishes in one run). Each retry is counted
 * ({@code varpulis.state.write.retries}). Thread-safe.
 */
public final class StateWriteBackoff {

    /** The first wait: a lost PubAck or a leader election is usually over by then. */
    static final Duration FIRST = Duration.ofMillis(50);
    /** The longest wait: a state that is still being written waits at most this long for the server to catch up. */
    static final Duration MAX = Duration.ofSeconds(2);

    private final Runnable retried;
    private long nextMillis = FIRST.toMillis();

    /**
     * @param retried counts one retry (the {@code varpulis.state.write.retries} counter of the pipeline)
     */
    public StateWriteBackoff(Runnable retried) {
        this.retried = retried;
    }

    /**
     * @return a backoff whose retries are not counted (a state opened outside a worker)
     */
    public static StateWriteBackoff uncounted() {
        return new StateWriteBackoff(() -> { });
    }

    /**
     * Counts a retry and says when to make it.
     *
     * @return the wait before this retry, in milliseconds: double the previous one, at most {@link #MAX}
     */
    public synchronized long nextRetryMillis() {
        retried.run();
        long wait = nextMillis;
        nextMillis = Math.min(MAX.toMillis(), nextMillis * 2);
        return wait;
    }

    /** A write was confirmed: the server takes writes again, the next failure waits {@link #FIRST} again. */
    public synchronized void confirmed() {
        nextMillis = FIRST.toMillis();
    }
}
