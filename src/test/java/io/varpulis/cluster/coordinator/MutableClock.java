package io.varpulis.cluster.coordinator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock the bookkeeping tests move by hand, from 2026-11-30T12:00:00Z, with a monotonic
 * reading ({@link #nanos()}) that moves with it.
 */
final class MutableClock extends Clock {

    private Instant now = Instant.parse("2026-11-30T12:00:00Z");

    private long nanos;

    void advance(Duration duration) {
        now = now.plus(duration);
        nanos += duration.toNanos();
    }

    /**
     * @return the monotonic reading, in nanoseconds from the start
     */
    long nanos() {
        return nanos;
    }

    @Override
    public ZoneOffset getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }

}
