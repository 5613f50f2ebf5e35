package io.varpulis.delivery;

import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.Delivery;

import java.lang.ref.WeakReference;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps the deliveries a route ingress is still working on alive: every delivery unsettled for a third of its
 * ack_wait gets an in-progress acknowledgement ({@code +WPI}), which restarts the server's ack_wait. So a delivery
 * waiting for the broker (outputs, state writes, a park, during an election or an outage) is not redelivered, and
 * spends none of its max_deliver budget on the broker's absence (SPEC section 9).
 * <p>One sweep of every tracked delivery every {@value #SWEEP_MILLIS} ms rather than a timer per delivery, like the
 * PubAck deadlines. A delivery being applied on its consumer's thread sits in that ingress's {@link Slot} (two
 * volatile writes, no allocation); only one still waiting when its apply returned (outputs, state writes, a park, the
 * broker) takes a queue node. Most deliveries are settled by then and cost the keeper nothing (issue 14, item 3).
 */
final class InProgressKeeper {

    private static final long SWEEP_MILLIS = 500;

    private final Queue<Tracked> tracked = new ConcurrentLinkedQueue<>();
    private final Queue<WeakReference<Slot>> slots = new ConcurrentLinkedQueue<>();

    InProgressKeeper() {
        ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(
                DaemonThreads.named("varpulis-in-progress"));
        sweeper.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * @param delivery a delivery just received
     * @return its handle: call {@link Tracked#done()} once the ingress settled or gave it up
     */
    Tracked track(Delivery delivery) {
        return track(delivery, System.nanoTime());
    }

    /**
     * @param delivery a delivery whose apply returned unsettled
     * @param since    when it last told the server it was in progress, or was received ({@link System#nanoTime()})
     * @return its handle: call {@link Tracked#done()} once the ingress settled or gave it up
     */
    Tracked track(Delivery delivery, long since) {
        Tracked entry = new Tracked(delivery, every(delivery), since);
        if (entry.every > 0) {
            tracked.add(entry);
        }
        return entry;
    }

    /**
     * @return a slot for one ingress's deliveries while they are applied; it is swept as long as the caller holds it
     */
    Slot slot() {
        Slot slot = new Slot();
        slots.add(new WeakReference<>(slot));
        return slot;
    }

    /** A third of the delivery's ack_wait, in ns ({@code Duration.dividedBy} goes through BigDecimal). */
    private static long every(Delivery delivery) {
        return delivery.ackWait().toNanos() / 3;
    }

    private void sweep() {
        long now = System.nanoTime();
        tracked.removeIf(entry -> entry.done || entry.delivery.isSettled());
        for (Tracked entry : tracked) {
            if (now - entry.since >= entry.every) {
                entry.since = now;
                entry.delivery.inProgress();
            }
        }
        slots.removeIf(reference -> reference.get() == null);
        for (WeakReference<Slot> reference : slots) {
            Slot slot = reference.get();
            if (slot != null) {
                slot.sweep(now);
            }
        }
    }

    /**
     * Where one ingress puts the delivery its consumer's thread is applying: at most one at a time, kept alive like a
     * tracked one. {@link #begin} refuses a second delivery while one is in it (the caller tracks that one instead).
     */
    static final class Slot {
        private final AtomicReference<Delivery> applying = new AtomicReference<>();
        private volatile long since;
        private volatile long every;

        private Slot() {
        }

        /**
         * @param delivery the delivery about to be applied
         * @return {@code true} when it is in the slot now, {@code false} when another one is
         */
        boolean begin(Delivery delivery) {
            long interval = every(delivery);
            if (interval <= 0) {
                return false;
            }
            if (!applying.compareAndSet(null, delivery)) {
                return false;
            }
            // A sweep between the two lines sees the previous delivery's times: at worst one early in-progress.
            since = System.nanoTime();
            every = interval;
            return true;
        }

        /**
         * Empties the slot.
         *
         * @return when the delivery last told the server it was in progress, or began ({@link System#nanoTime()})
         */
        long end() {
            long last = since;
            applying.set(null);
            return last;
        }

        private void sweep(long now) {
            Delivery delivery = applying.get();
            if (delivery != null && now - since >= every) {
                since = now;
                delivery.inProgress();
            }
        }
    }

    /** One tracked delivery. */
    static final class Tracked {
        private final Delivery delivery;
        private final long every;
        private volatile long since;
        private volatile boolean done;

        private Tracked(Delivery delivery, long every, long since) {
            this.delivery = delivery;
            this.every = every;
            this.since = since;
        }

        /** Stops keeping it alive: it was settled, or is left for the server to redeliver. */
        void done() {
            done = true;
        }
    }
}
