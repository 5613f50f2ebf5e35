package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.ForwardingDelivery;
import io.varpulis.transport.ParkReason;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A delivery whose process observation ends when it is settled, with the settlement as its outcome: {@code acked},
 * {@code nak}, {@code parked} (with the park's reason, read from the settlement, never from the DLQ message) or
 * {@code left} (given up unsettled). The container settles it exactly as it would the transport's delivery.
 */
final class ObservedDelivery extends ForwardingDelivery {

    private final Observation observation;
    private final NatsProcessContext context;
    private final Traces traces;
    private final AtomicBoolean stopped = new AtomicBoolean();

    ObservedDelivery(Delivery delegate, Observation observation, NatsProcessContext context, Traces traces) {
        super(delegate);
        this.observation = observation;
        this.context = context;
        this.traces = traces;
    }

    Observation observation() {
        return observation;
    }

    NatsProcessContext context() {
        return context;
    }

    /**
     * @return the trace id of its process span, or {@code null} without a tracer
     */
    @Override
    public String traceId() {
        return traces.traceId(observation);
    }

    /** The unsampled delivery being processed on this thread, whose trace headers its publishes carry through. */
    private static final ThreadLocal<NatsProcessContext> UNSAMPLED = new ThreadLocal<>();

    /**
     * Runs the code with this delivery's process observation current (and so its span, for the tracer). An unsampled
     * delivery opens no scope, which would only put a span-less observation in Micrometer's thread-locals (a tenth of
     * observation's cost per message, issue 32): its publishes find it here ({@link #unsampledInContext()}).
     */
    @Override
    public <T> T inContext(Supplier<T> work) {
        if (context.unsampled()) {
            NatsProcessContext outer = UNSAMPLED.get();
            UNSAMPLED.set(context);
            try {
                return super.inContext(work);
            } finally {
                if (outer == null) {
                    UNSAMPLED.remove();
                } else {
                    UNSAMPLED.set(outer);
                }
            }
        }
        try (Observation.Scope scope = observation.openScope()) {
            return super.inContext(work);
        }
    }

    /**
     * @return the unsampled delivery whose processing runs on this thread, or {@code null}
     */
    static NatsProcessContext unsampledInContext() {
        return UNSAMPLED.get();
    }

    @Override
    protected void doAck() {
        try {
            super.doAck();
        } catch (RuntimeException e) {
            end("acked", e);
            throw e;
        }
        end("acked", null);
    }

    @Override
    protected void doNak(Duration delay) {
        try {
            super.doNak(delay);
        } catch (RuntimeException e) {
            end("nak", e);
            throw e;
        }
        end("nak", null);
    }

    @Override
    protected void doParked(ParkReason reason) {
        context.parked(reason.tag());
        try {
            super.doParked(reason);
        } catch (RuntimeException e) {
            end("parked", e);
            throw e;
        }
        end("parked", null);
    }

    @Override
    protected void doLeave(String why) {
        super.doLeave(why);
        end("left", null);
    }

    /**
     * Ends the observation once, whatever ends it first (a settle, a handler's failure, a delivery given up).
     *
     * @param how   the outcome, unless the delivery was parked
     * @param error the failure to record, or {@code null}
     */
    void end(String how, Throwable error) {
        if (stopped.compareAndSet(false, true)) {
            context.settled(how);
            if (error != null) {
                observation.error(error);
            }
            observation.stop();
        }
    }
}
