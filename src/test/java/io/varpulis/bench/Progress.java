package io.varpulis.bench;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What happened to the events of one run: confirmed publishes, applied events (each
 * sequence number once: a second apply is counted as a duplicate), and when the last of
 * each happened.
 */
final class Progress {

    private final int expected;

    private final AtomicInteger confirmed = new AtomicInteger();

    private final AtomicInteger failed = new AtomicInteger();

    private final CountDownLatch allConfirmed = new CountDownLatch(1);

    private final CountDownLatch allApplied = new CountDownLatch(1);

    private final boolean[] seen;

    private int applied;

    private int duplicates;

    private volatile long lastConfirmedNanos;

    private volatile long lastAppliedNanos;

    Progress(int expected) {
        this.expected = expected;
        this.seen = new boolean[expected];
    }

    /** A publish outcome. */
    void confirmed(Throwable error) {
        if (error != null) {
            failed.incrementAndGet();
        }
        if (confirmed.incrementAndGet() == expected) {
            lastConfirmedNanos = System.nanoTime();
            allConfirmed.countDown();
        }
    }

    /** An event applied and acked. */
    synchronized void applied(int seq) {
        if (seen[seq]) {
            duplicates++;
            return;
        }
        seen[seq] = true;
        if (++applied == expected) {
            lastAppliedNanos = System.nanoTime();
            allApplied.countDown();
        }
    }

    /**
     * Waits for every publish to be answered and every event applied, giving up after
     * {@code timeout} or when nothing moved for {@code stall} (core drops what it cannot
     * deliver, and nothing brings it back).
     * @return {@code true} when complete
     */
    boolean await(Duration timeout, Duration stall) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long lastMove = System.nanoTime();
        long seen = -1;
        while (!allApplied.await(100, TimeUnit.MILLISECONDS) || !allConfirmed.await(100, TimeUnit.MILLISECONDS)) {
            long now = System.nanoTime();
            long moved = (long) confirmed.get() + applied();
            if (moved != seen) {
                seen = moved;
                lastMove = now;
            }
            if (now > deadline || now - lastMove > stall.toNanos()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits for every publish to be answered (the stored mode publishes everything before
     * it consumes).
     * @return {@code true} when every publish was answered in time
     */
    boolean awaitConfirmed(Duration timeout) throws InterruptedException {
        return allConfirmed.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    long lastConfirmedNanos() {
        return lastConfirmedNanos;
    }

    long lastAppliedNanos() {
        return lastAppliedNanos;
    }

    int failed() {
        return failed.get();
    }

    synchronized int applied() {
        return applied;
    }

    synchronized int duplicates() {
        return duplicates;
    }

}
