package io.varpulis.transport;

import io.varpulis.support.DaemonThreads;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fails the publishes whose PubAck has not come within the publish timeout, with a {@link TimeoutException}, checking
 * every outstanding publish at once every tenth of the timeout (at most 100 ms late).
 * <p>Why not {@code CompletableFuture.orTimeout}: it schedules and then cancels one task per publish, under a lock
 * shared with the thread that receives the PubAcks, which cost about 7 % of the client's CPU per routed event in
 * issue 7's benchmark. jnats' own request cleanup would fail a lost PubAck too, but only after 5 to 10 s whatever
 * the publish timeout.
 */
final class PubAckDeadlines implements AutoCloseable {

    private static final long MAX_SWEEP_MILLIS = 100;

    private final long timeoutNanos;
    private final Queue<Outstanding> outstanding = new ConcurrentLinkedQueue<>();
    private final ScheduledExecutorService sweeper;

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
     * @param pubAck a publish's PubAck, failed with a {@link TimeoutException} unless it completes within the timeout
     * @param <T>    its type
     * @return {@code pubAck}
     */
    <T> CompletableFuture<T> watch(CompletableFuture<T> pubAck) {
        outstanding.add(new Outstanding(System.nanoTime() + timeoutNanos, pubAck));
        return pubAck;
    }

    private void sweep() {
        long now = System.nanoTime();
        outstanding.removeIf(entry -> entry.pubAck.isDone()
                || now - entry.deadline >= 0 && entry.pubAck.completeExceptionally(new TimeoutException()));
    }

    /** Stops checking: publishes outstanding or made later are then failed only by jnats' request cleanup. */
    @Override
    public void close() {
        sweeper.shutdownNow();
    }

    private record Outstanding(long deadline, CompletableFuture<?> pubAck) {
    }
}
