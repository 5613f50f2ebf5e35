package io.varpulis.support;

import org.slf4j.Logger;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One WARN per interval for a failure that may repeat on every delivery (an observation
 * handler with a bug): the first with its stack trace, the next after the interval with
 * how many were not logged in between, so a log is read, not flooded. Each failure is
 * still counted by its meter.
 */
public final class RateLimitedLog {

    private final long intervalNanos;

    private final AtomicLong nextNanos = new AtomicLong(Long.MIN_VALUE);

    private final AtomicLong unlogged = new AtomicLong();

    private volatile boolean traced;

    /**
     * @param interval the shortest time between two lines
     */
    public RateLimitedLog(Duration interval) {
        this.intervalNanos = interval.toNanos();
    }

    /**
     * @param log where to write
     * @param message the line
     * @param error the failure (its stack trace on the first line only)
     */
    public void warn(Logger log, String message, Throwable error) {
        long now = System.nanoTime();
        long next = nextNanos.get();
        if ((next != Long.MIN_VALUE && now - next < 0) || !nextNanos.compareAndSet(next, now + intervalNanos)) {
            unlogged.incrementAndGet();
            return;
        }
        long skipped = unlogged.getAndSet(0);
        String line = skipped == 0 ? message
                : message + " (" + skipped + " more like it since the last line, not logged)";
        if (traced) {
            log.warn(line);
        }
        else {
            traced = true;
            log.warn(line, error);
        }
    }

}
