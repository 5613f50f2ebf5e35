package io.varpulis.container;

/**
 * Whether a {@link DeliveryContainer} still applies what it receives, shared by the
 * container and its {@link Settler}: written by the container's lifecycle, read by every
 * settlement.
 */
final class ContainerState {

    private volatile Settlement.State state = Settlement.State.RUNNING;

    private volatile boolean closed;

    /**
     * @return running, stopped or fenced
     */
    Settlement.State get() {
        return state;
    }

    /**
     * @return whether it stopped taking deliveries
     */
    boolean closed() {
        return closed;
    }

    /** Stops (a fenced container stays fenced). */
    void stop() {
        if (state == Settlement.State.RUNNING) {
            state = Settlement.State.STOPPED;
        }
    }

    /** Fences: nothing more has any effect. */
    void fence() {
        state = Settlement.State.FENCED;
    }

    /**
     * Closes, stopping a running container.
     * @return whether this call closed it (the first)
     */
    synchronized boolean close() {
        if (closed) {
            return false;
        }
        stop();
        closed = true;
        return true;
    }

    /**
     * @return the outcome of a delivery the container no longer applies: fenced, or
     * stopped
     */
    Outcome notApplied() {
        return state == Settlement.State.FENCED ? Outcome.fenced(null)
                : Outcome.stopped("its consumer stopped on this node");
    }

}
