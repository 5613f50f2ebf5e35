package io.varpulis.container;

import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.transport.Delivery;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The deliveries one {@link DeliveryContainer} holds, from the moment the client hands
 * one over until it is settled (queued, being applied, waiting for its state writes, its
 * outputs or the broker), and when one was last released: what the
 * {@link InProgressKeeper} keeps alive and watches for a stall. Thread-safe.
 */
final class HeldDeliveries {

    private final Set<Delivery> deliveries = ConcurrentHashMap.newKeySet();

    private final String holder;

    private final DeliveryMeters meters;

    private volatile long releasedNanos = System.nanoTime();

    private volatile boolean stallReported;

    /**
     * @param holder the container, as its logs name it
     * @param meters its unit's meters, where a stall is counted
     */
    HeldDeliveries(String holder, DeliveryMeters meters) {
        this.holder = holder;
        this.meters = meters;
    }

    /**
     * @param delivery just handed over, held until {@link #release}
     */
    void hold(Delivery delivery) {
        deliveries.add(delivery);
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
