package io.varpulis.container;

import io.varpulis.transport.Delivery;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Keeps alive every delivery a container holds (queued behind others, being applied, or waiting for its effects or
 * for the broker): each one not settled a third of its ack_wait after it was received, or last said in progress, gets
 * an in-progress acknowledgement ({@code +WPI}), which restarts the server's ack_wait. So nothing a live process holds
 * is redelivered or spends a delivery of its max_deliver budget, whether it waits on slowness (a slow disk behind the
 * stream's leader) or on the broker's absence (SPEC section 9). A delivery settled within a third of ack_wait, the
 * usual case, costs the keeper nothing.
 * <p>One sweep of every container's deliveries every {@value #SWEEP_MILLIS} ms, rather than a timer per delivery.
 */
final class InProgressKeeper implements AutoCloseable {

    /** How often the held deliveries are looked at, ms. */
    static final long SWEEP_MILLIS = 500;

    private final Set<Collection<Delivery>> held = ConcurrentHashMap.newKeySet();
    private final ScheduledFuture<?> sweeps;

    /**
     * @param scheduler runs the sweeps
     */
    InProgressKeeper(ScheduledExecutorService scheduler) {
        this.sweeps = scheduler.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /**
     * @param deliveries a container's held deliveries (a concurrent collection), kept alive until {@link #forget}
     */
    void keep(Collection<Delivery> deliveries) {
        held.add(deliveries);
    }

    /**
     * @param deliveries a collection given to {@link #keep}
     */
    void forget(Collection<Delivery> deliveries) {
        held.remove(deliveries);
    }

    void sweep() {
        long now = System.nanoTime();
        for (Collection<Delivery> deliveries : held) {
            for (Delivery delivery : deliveries) {
                long every = delivery.ackWait().toNanos() / 3;
                if (every > 0 && now - delivery.progressNanos() >= every) {
                    delivery.inProgress();
                }
            }
        }
    }

    @Override
    public void close() {
        sweeps.cancel(false);
    }
}
