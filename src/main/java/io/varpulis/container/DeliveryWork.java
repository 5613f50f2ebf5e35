package io.varpulis.container;

import io.varpulis.transport.Delivery;
import org.springframework.util.backoff.BackOffExecution;

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

    private volatile boolean timedOut;

    DeliveryWork(Delivery received, Delivery delivery) {
        this.received = received;
        this.delivery = delivery;
    }

    long nextWait(ContainerRuntime runtime) {
        if (waits == null) {
            waits = runtime.backOff().start();
        }
        waited = true;
        return waits.nextBackOff();
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
     * The apply step has an outcome.
     * @return whether it had been reported past its apply timeout
     */
    boolean outcomeKnown() {
        applyingSince = 0;
        applyingOn = null;
        return timedOut;
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
     * Marks it past its apply timeout, once.
     * @return whether this call marked it
     */
    synchronized boolean timeOut() {
        if (timedOut || applyingSince == 0) {
            return false;
        }
        timedOut = true;
        return true;
    }

    /**
     * @return whether it outlived its apply timeout
     */
    boolean timedOut() {
        return timedOut;
    }

}
