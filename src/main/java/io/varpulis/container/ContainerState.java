package io.varpulis.container;

/**
 * Whether a {@link DeliveryContainer} still applies what it receives, and why it stopped,
 * shared by the container and its {@link Settler}: written by the container's lifecycle,
 * read by every settlement.
 */
final class ContainerState {

    private volatile Settlement.State state = Settlement.State.RUNNING;

    private volatile boolean closed;

    private volatile StopReason reason;

    private volatile Throwable cause;

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

    /**
     * @return why it stopped, or {@code null} while it runs
     */
    StopReason reason() {
        return reason;
    }

    /**
     * @return what stopped it ({@link StopReason#ERROR}), or {@code null}
     */
    Throwable cause() {
        return cause;
    }

    /** Stops (a fenced container stays fenced). */
    void stop() {
        stop(StopReason.NORMAL, null);
    }

    /**
     * Stops for a reason, the first one given kept.
     * @param why why
     * @param error what stopped it, or {@code null}
     */
    synchronized void stop(StopReason why, Throwable error) {
        if (state == Settlement.State.RUNNING) {
            state = Settlement.State.STOPPED;
        }
        if (reason == null) {
            reason = why;
            cause = error;
        }
    }

    /** Fences: nothing more has any effect. */
    void fence() {
        stop(StopReason.FENCED, null);
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
