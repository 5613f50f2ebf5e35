package io.varpulis.container;

import io.varpulis.transport.Delivery;
import org.springframework.util.backoff.BackOffExecution;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One delivery's way through a {@link DeliveryContainer}: as received, as decorated, when
 * its apply began and on which thread, whether it outlived its apply timeout, and its
 * waits for the broker.
 */
final class DeliveryWork {

    /** As the transport delivered it (what the container holds). */
    final Delivery received;

    /** As decorated for processing (what is settled), or {@link #received}. */
    volatile Delivery delivery;

    final long started = System.nanoTime();

    private BackOffExecution waits;

    private volatile boolean waited;

    /**
     * When its current apply step began ({@link System#nanoTime()}); 0 when none runs.
     */
    private volatile long applyingSince;

    /** The thread running its apply synchronously, or {@code null}. */
    private volatile Thread applyingOn;

    private static final int OPEN = 0;

    private static final int BY_OUTCOME = 1;

    private static final int BY_TIMEOUT = 2;

    /**
     * Who settles the delivery: its apply's outcome or its apply timeout, whichever comes
     * first (one-shot), so a late outcome never settles a delivery its timeout released.
     */
    private final AtomicInteger claim = new AtomicInteger(OPEN);

    /** When it first waited for an absent broker ({@link System#nanoTime()}), or 0. */
    private long firstWaitNanos;

    DeliveryWork(Delivery received, Delivery delivery) {
        this.received = received;
        this.delivery = delivery;
    }

    long nextWait(ContainerRuntime runtime) {
        if (waits == null) {
            waits = runtime.backOff().start();
            firstWaitNanos = System.nanoTime();
        }
        waited = true;
        return waits.nextBackOff();
    }

    /**
     * @return how long it has waited for an absent broker, ns (0 when it never did)
     */
    long waitingNanos() {
        return waits == null ? 0 : System.nanoTime() - firstWaitNanos;
    }

    void gotThrough(BrokerOutage outage) {
        if (waited) {
            outage.recovered();
        }
    }

    /** Processes the received delivery itself: its decoration failed. */
    void undecorate() {
        delivery = received;
    }

    /**
     * @param thread the thread about to run the apply, or {@code null} for a step that
     * runs asynchronously
     */
    void applying(Thread thread) {
        applyingSince = System.nanoTime();
        applyingOn = thread;
    }

    /** The synchronous part of the apply returned. */
    void returned() {
        applyingOn = null;
    }

    /**
     * The apply has an outcome: claims the delivery's settlement for it, unless its apply
     * timeout claimed it first.
     * @return whether the timeout claimed it first (the outcome comes late and settles
     * nothing)
     */
    boolean outcomeKnown() {
        applyingSince = 0;
        applyingOn = null;
        return !claim.compareAndSet(OPEN, BY_OUTCOME) && claim.get() == BY_TIMEOUT;
    }

    /**
     * @return when its apply step began, or 0 when none runs
     */
    long applyingSince() {
        return applyingSince;
    }

    /**
     * @return the thread stuck in its apply, or {@code null}
     */
    Thread applyingOn() {
        return applyingOn;
    }

    /**
     * Claims the delivery's settlement for its apply timeout, unless its outcome came
     * first.
     * @return whether this call claimed it
     */
    boolean timeOut() {
        return applyingSince != 0 && claim.compareAndSet(OPEN, BY_TIMEOUT);
    }

    /**
     * @return whether it outlived its apply timeout
     */
    boolean timedOut() {
        return claim.get() == BY_TIMEOUT;
    }

}
