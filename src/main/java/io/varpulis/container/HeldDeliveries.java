package io.varpulis.container;

import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.transport.Delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The deliveries one {@link DeliveryContainer} holds, from the moment the client hands
 * one over until it is settled (queued, being applied, waiting for its state writes, its
 * outputs or the broker), when one was last released, and those whose apply runs: what
 * the {@link InProgressKeeper} keeps alive, watches for a stall, and holds to the apply
 * timeout. Thread-safe.
 */
final class HeldDeliveries {

    private final Set<Delivery> deliveries = ConcurrentHashMap.newKeySet();

    private final Set<DeliveryWork> applying = ConcurrentHashMap.newKeySet();

    private final String holder;

    private final DeliveryMeters meters;

    private final long applyTimeoutNanos;

    private final long idleNanos;

    private final Watcher watcher;

    private volatile long releasedNanos = System.nanoTime();

    private volatile long receivedNanos = System.nanoTime();

    private volatile boolean idle;

    private volatile boolean closed;

    /**
     * How many applies ran past the timeout and have no outcome yet: none, the usual
     * case, costs no walk.
     */
    private final AtomicInteger hung = new AtomicInteger();

    private volatile boolean stallReported;

    /** What the keeper's sweeps tell the container. */
    interface Watcher {

        /**
         * @param work whose apply ran past the apply timeout (told once)
         */
        void timedOut(DeliveryWork work);

        /**
         * @param idleFor how long no delivery came (told once per idle period)
         */
        void idle(Duration idleFor);

        /**
         * @param idleFor how long the idle period lasted
         */
        void noLongerIdle(Duration idleFor);

    }

    /**
     * @param holder the container, as its logs name it
     * @param meters its unit's meters, where a stall is counted
     * @param applyTimeout how long an apply step may run
     * @param idleInterval after how long without a delivery it is idle, or {@code null}
     * for never
     * @param watcher told of timeouts and idleness
     */
    HeldDeliveries(String holder, DeliveryMeters meters, Duration applyTimeout, Duration idleInterval,
            Watcher watcher) {
        this.holder = holder;
        this.meters = meters;
        this.applyTimeoutNanos = applyTimeout.toNanos();
        this.idleNanos = idleInterval == null ? 0 : idleInterval.toNanos();
        this.watcher = watcher;
    }

    /**
     * @param delivery just handed over, held until {@link #release}
     */
    void hold(Delivery delivery) {
        deliveries.add(delivery);
        if (idleNanos > 0) {
            long now = System.nanoTime();
            long since = receivedNanos;
            receivedNanos = now;
            if (idle) {
                idle = false;
                watcher.noLongerIdle(Duration.ofNanos(now - since));
            }
        }
    }

    /**
     * Tells the container it is idle, once per idle period.
     * @param now {@link System#nanoTime()}
     */
    void checkIdle(long now) {
        if (idleNanos > 0 && !idle && deliveries.isEmpty() && now - receivedNanos >= idleNanos) {
            idle = true;
            watcher.idle(Duration.ofNanos(now - receivedNanos));
        }
    }

    /**
     * @param delivery settled (or left): no longer held; a stall, if one was reported, is
     * over
     */
    void release(Delivery delivery) {
        if (deliveries.remove(delivery)) {
            releasedNanos = System.nanoTime();
            stallReported = false;
        }
    }

    /**
     * @param work whose apply step starts now
     * @param thread the thread running it synchronously, or {@code null}
     */
    void applying(DeliveryWork work, Thread thread) {
        work.applying(thread);
        applying.add(work);
    }

    /**
     * @param work whose apply step has an outcome
     * @return whether that apply had been reported past its timeout
     */
    boolean outcomeKnown(DeliveryWork work) {
        applying.remove(work);
        boolean late = work.outcomeKnown();
        if (late) {
            hung.decrementAndGet();
        }
        return late;
    }

    /**
     * Tells the container of each apply step that has run past the timeout, once each.
     * @param now {@link System#nanoTime()}
     */
    void checkTimeouts(long now) {
        for (DeliveryWork work : applying) {
            long since = work.applyingSince();
            if (since != 0 && now - since >= applyTimeoutNanos && work.timeOut()) {
                hung.incrementAndGet();
                watcher.timedOut(work);
            }
        }
    }

    /**
     * @return the works whose apply outlived its timeout and has no outcome yet (the
     * health shows them)
     */
    List<DeliveryWork> hung() {
        List<DeliveryWork> hung = new ArrayList<>();
        for (DeliveryWork work : applying) {
            if (work.timedOut()) {
                hung.add(work);
            }
        }
        return hung;
    }

    /**
     * @param streamSequence a message's stream sequence
     * @return whether an earlier delivery of it is still applied here, past its timeout
     */
    boolean stillApplying(long streamSequence) {
        if (streamSequence <= 0 || hung.get() == 0) {
            return false;
        }
        for (DeliveryWork work : applying) {
            if (work.timedOut() && work.received.streamSequence() == streamSequence) {
                return true;
            }
        }
        return false;
    }

    /**
     * Its container closed: the keeper goes on keeping what is still held in progress (an
     * apply still running, waiting for its effects) and forgets the set once it is empty.
     */
    void close() {
        closed = true;
    }

    /**
     * @return whether its container closed and nothing is held any more
     */
    boolean done() {
        return closed && deliveries.isEmpty();
    }

    /**
     * @return how many are held
     */
    int size() {
        return deliveries.size();
    }

    /**
     * @return whether none is held
     */
    boolean isEmpty() {
        return deliveries.isEmpty();
    }

    /**
     * @return the held deliveries, a live weakly consistent view
     */
    Iterable<Delivery> all() {
        return deliveries;
    }

    /**
     * @return when a delivery was last released ({@link System#nanoTime()}), or when this
     * set was made
     */
    long releasedNanos() {
        return releasedNanos;
    }

    /**
     * Marks the current stall reported, once: the next report needs a release first.
     * @return whether this call is the first since the last release (the caller logs and
     * counts it)
     */
    boolean reportStall() {
        if (stallReported) {
            return false;
        }
        stallReported = true;
        meters.stalled();
        return true;
    }

    /**
     * @return the container, as its logs name it
     */
    String holder() {
        return holder;
    }

}
