package io.varpulis.delivery;

import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.Delivery;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the deliveries a route ingress is still working on alive: every delivery unsettled for a third of its
 * ack_wait gets an in-progress acknowledgement ({@code +WPI}), which restarts the server's ack_wait. So a delivery
 * waiting for the broker (outputs, state writes, a park, during an election or an outage) is not redelivered, and
 * spends none of its max_deliver budget on the broker's absence (SPEC section 9).
 * <p>One sweep of every tracked delivery every {@value #SWEEP_MILLIS} ms rather than a timer per delivery, like the
 * PubAck deadlines: tracking costs one queue node per delivery.
 */
final class InProgressKeeper {

    private static final long SWEEP_MILLIS = 500;

    private final Queue<Tracked> tracked = new ConcurrentLinkedQueue<>();

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
        Tracked entry = new Tracked(delivery, delivery.ackWait().dividedBy(3).toNanos(), System.nanoTime());
        if (entry.every > 0) {
            tracked.add(entry);
        }
        return entry;
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
