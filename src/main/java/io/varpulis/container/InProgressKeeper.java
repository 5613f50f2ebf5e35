package io.varpulis.container;

import io.varpulis.transport.Delivery;
import io.varpulis.support.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Keeps alive every delivery a container holds (queued behind others, being applied, or
 * waiting for its effects or for the broker): each one not settled a third of its
 * ack_wait after it was received, or last said in progress, gets an in-progress
 * acknowledgement ({@code +WPI}), which restarts the server's ack_wait. So nothing a live
 * process holds is redelivered or spends a delivery of its max_deliver budget, whether it
 * waits on slowness (a slow disk behind the stream's leader) or on the broker's absence
 * (SPEC section 9). A delivery settled within a third of ack_wait, the usual case, costs
 * the keeper nothing.
 * <p>
 * A container is stalled when it has held a delivery for a whole ack_wait and released
 * none for as long: nothing is lost (all stay in progress) but nothing moves, whatever
 * holds it up (an apply that does not return, a state write or an output whose PubAck
 * does not come). Each stall is logged once at WARN and counted
 * ({@code varpulis.consumer.stalls{unit}}, the chart's {@code VarpulisConsumerStalled}
 * alert); a slow pipeline that still settles something within each ack_wait is not
 * stalled. Issue 30 found a pipeline held up for minutes by a state write whose PubAck
 * never came, with no line in any log.
 * <p>
 * An apply step that runs past its container's apply timeout is handed back to the
 * container once ({@link HeldDeliveries#checkTimeouts}), which reports and releases it:
 * nothing is kept in progress for ever.
 * <p>
 * One sweep of every container's deliveries every {@value #SWEEP_MILLIS} ms, rather than
 * a timer per delivery. A sweep never ends the keeper: whatever one container's sweep
 * throws is logged and the others go on (a scheduled task that throws is never run again,
 * which would stop keeping alive every container of the process).
 */
final class InProgressKeeper implements AutoCloseable {

    /** How often the held deliveries are looked at, ms. */
    static final long SWEEP_MILLIS = 500;

    private static final Logger log = LoggerFactory.getLogger(InProgressKeeper.class);

    private final Set<HeldDeliveries> held = ConcurrentHashMap.newKeySet();

    private final ScheduledFuture<?> sweeps;

    private final RateLimitedLog failures = new RateLimitedLog(Duration.ofMinutes(1));

    /**
     * @param scheduler runs the sweeps
     */
    InProgressKeeper(ScheduledExecutorService scheduler) {
        this.sweeps = scheduler.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * @param deliveries a container's held deliveries, kept alive and watched until its
     * container closed and none is held ({@link HeldDeliveries#done})
     */
    void keep(HeldDeliveries deliveries) {
        held.add(deliveries);
    }

    void sweep() {
        long now = System.nanoTime();
        for (HeldDeliveries deliveries : held) {
            if (deliveries.done()) {
                held.remove(deliveries);
                continue;
            }
            try {
                sweep(deliveries, now);
            }
            catch (Throwable e) {
                failures.warn(log, deliveries.holder() + ": keeping its deliveries in progress failed this sweep (" + e
                        + "); trying again in " + SWEEP_MILLIS + " ms", e);
            }
        }
    }

    private static void sweep(HeldDeliveries deliveries, long now) {
        Delivery oldest = null;
        for (Delivery delivery : deliveries.all()) {
            long ackWait = delivery.ackWait().toNanos();
            if (ackWait > 0 && now - delivery.progressNanos() >= ackWait / 3) {
                delivery.inProgress();
            }
            if (oldest == null || delivery.receivedNanos() < oldest.receivedNanos()) {
                oldest = delivery;
            }
        }
        if (oldest != null) {
            watchForStall(deliveries, oldest, now);
        }
        deliveries.checkTimeouts(now);
        deliveries.checkIdle(now);
    }

    private static void watchForStall(HeldDeliveries deliveries, Delivery oldest, long now) {
        long ackWait = oldest.ackWait().toNanos();
        long still = now - Math.max(oldest.receivedNanos(), deliveries.releasedNanos());
        if (ackWait > 0 && still >= ackWait && deliveries.reportStall()) {
            log.warn(
                    "{}: stalled: {} delivery(ies) held and none settled for {} s (ack_wait {} s); the oldest, {}, "
                            + "was received {} s ago and has no outcome yet (its apply, a state write or an output "
                            + "not done). All are kept in progress, nothing is lost; a thread dump of this process "
                            + "shows what the apply waits for",
                    deliveries.holder(), deliveries.size(), Duration.ofNanos(still).toSeconds(),
                    oldest.ackWait().toSeconds(), oldest, Duration.ofNanos(now - oldest.receivedNanos()).toSeconds());
        }
    }

    @Override
    public void close() {
        sweeps.cancel(false);
    }

}
