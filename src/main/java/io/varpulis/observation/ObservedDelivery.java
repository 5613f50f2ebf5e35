package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.varpulis.transport.Delivery;

import java.util.function.Supplier;

/**
 * A delivery whose process observation is current while it is processed and ends when it
 * is settled, with the settlement as its outcome ({@link SettledDelivery}).
 */
final class ObservedDelivery extends SettledDelivery {

    private final Observation observation;

    private final Traces traces;

    ObservedDelivery(Delivery delegate, Observation observation, NatsProcessContext context, Traces traces) {
        super(delegate, context);
        this.observation = observation;
        this.traces = traces;
    }

    Observation observation() {
        return observation;
    }

    /**
     * @return the trace id of its process span, or {@code null} without a tracer
     */
    @Override
    public String traceId() {
        return traces.traceId(observation);
    }

    /**
     * Runs the code with this delivery's process observation current (and so its span,
     * for the tracer).
     */
    @Override
    public <T> T inContext(Supplier<T> work) {
        try (Observation.Scope scope = observation.openScope()) {
            return super.inContext(work);
        }
    }

    @Override
    protected void end(Throwable error) {
        if (error != null) {
            observation.error(error);
        }
        observation.stop();
    }

}
