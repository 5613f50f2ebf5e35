package io.varpulis.transport;

import io.varpulis.support.DaemonThreads;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Expires the publishes whose PubAck has not come within the publish timeout, checking
 * every outstanding publish at once every tenth of the timeout (at most 100 ms late).
 * <p>
 * Why not {@code CompletableFuture.orTimeout}: it schedules and then cancels one task per
 * publish, under a lock shared with the thread that receives the PubAcks, which cost
 * about 7 % of the client's CPU per routed event in issue 7's benchmark. jnats' own
 * request cleanup would fail a lost PubAck too, but only after 5 to 10 s whatever the
 * publish timeout. A watched publish is its own queue entry (no wrapper per publish), and
 * a sweep looks at the oldest ones only: walking every outstanding publish each time cost
 * 1-2 % of a core (issue 14, item 3).
 */
final class PubAckDeadlines implements AutoCloseable {

    private static final long MAX_SWEEP_MILLIS = 100;

    /**
     * Entries in the queue above which a sweep also drops the done ones behind a publish
     * still waiting.
     */
    private static final long COMPACT_ABOVE = 16_384;

    private final long timeoutNanos;

    private final Queue<Watched> outstanding = new ConcurrentLinkedQueue<>();

    private final ScheduledExecutorService sweeper;

    private final AtomicLong watched = new AtomicLong();

    /** Entries the sweeper took out of the queue; only its thread writes it. */
    private long removed;

    /** A publish waiting for its PubAck. */
    interface Watched {

        /**
         * @return when it expires ({@link System#nanoTime()}), as
         * {@link #deadlineFromNow()} gave it
         */
        long deadline();

        /**
         * @return {@code true} once its PubAck came (or it failed, or expired)
         */
        boolean isDone();

        /**
         * Fails it for want of a PubAck within the timeout; nothing when it is done
         * already.
         */
        void expire();

    }

    /**
     * @param timeout how long a publish may wait for its PubAck
     */
    PubAckDeadlines(Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
        this.sweeper = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-puback-deadlines"));
        long every = Math.max(1, Math.min(MAX_SWEEP_MILLIS, timeout.toMillis() / 10));
        sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * @return the deadline of a publish made now ({@link System#nanoTime()})
     */
    long deadlineFromNow() {
        return System.nanoTime() + timeoutNanos;
    }

    /**
     * @param publish a publish, expired unless it is done by its deadline
     * @param <T> its type
     * @return {@code publish}
     */
    <T extends Watched> T watch(T publish) {
        outstanding.add(publish);
        watched.incrementAndGet();
        return publish;
    }

    private void sweep() {
        long now = System.nanoTime();
        // Publishes are watched in the order of their deadlines (one timeout for all;
        // concurrent publishers may swap
        // neighbours by microseconds): the first one still waiting is the next to expire,
        // and the sweep stops there.
        for (Watched head = outstanding.peek(); head != null; head = outstanding.peek()) {
            if (!head.isDone()) {
                if (now - head.deadline() < 0) {
                    break;
                }
                head.expire();
            }
            outstanding.poll();
            removed++;
        }
        // Behind a publish still waiting, those done since wait their turn; when they
        // pile up (one PubAck late while
        // thousands come), they are dropped in one pass.
        if (watched.get() - removed > COMPACT_ABOVE) {
            outstanding.removeIf(entry -> {
                boolean gone = entry.isDone();
                if (gone) {
                    removed++;
                }
                return gone;
            });
        }
    }

    /**
     * Stops checking: publishes outstanding or made later are then failed only by jnats'
     * request cleanup.
     */
    @Override
    public void close() {
        sweeper.shutdownNow();
    }

}
