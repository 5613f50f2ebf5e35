package io.varpulis.observation;

import io.varpulis.transport.Delivery;
import io.varpulis.transport.ForwardingDelivery;
import io.varpulis.transport.ParkReason;

import java.time.Duration;

/**
 * A delivery whose process observation (or, untraced, its timer) ends when it is settled,
 * with the settlement as its outcome: {@code acked}, {@code nak}, {@code parked} (with
 * the park's reason, read from the settlement, never from the DLQ message) or
 * {@code left} (given up unsettled). The container settles it exactly as it would the
 * transport's delivery; a delivery settles once (its settlement is a compare-and-set), so
 * {@link #end} runs once.
 */
abstract class SettledDelivery extends ForwardingDelivery {

    private final NatsProcessContext context;

    /**
     * @param delegate the delivery
     * @param context its process context
     */
    SettledDelivery(Delivery delegate, NatsProcessContext context) {
        super(delegate);
        this.context = context;
    }

    /**
     * @return its process context
     */
    NatsProcessContext context() {
        return context;
    }

    @Override
    protected void doAck() {
        try {
            super.doAck();
        }
        catch (RuntimeException e) {
            settled("acked", e);
            throw e;
        }
        settled("acked", null);
    }

    @Override
    protected void doNak(Duration delay) {
        try {
            super.doNak(delay);
        }
        catch (RuntimeException e) {
            settled("nak", e);
            throw e;
        }
        settled("nak", null);
    }

    @Override
    protected void doParked(ParkReason reason) {
        context.parked(reason.tag());
        try {
            super.doParked(reason);
        }
        catch (RuntimeException e) {
            settled("parked", e);
            throw e;
        }
        settled("parked", null);
    }

    @Override
    protected void doLeave(String why) {
        super.doLeave(why);
        settled("left", null);
    }

    private void settled(String how, Throwable error) {
        context.settled(how);
        end(error);
    }

    /**
     * Ends the observation (or records the timer) once its context holds the outcome.
     * @param error the settlement's failure, or {@code null}
     */
    protected abstract void end(Throwable error);

}
