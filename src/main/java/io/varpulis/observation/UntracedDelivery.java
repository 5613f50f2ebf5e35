package io.varpulis.observation;

import io.micrometer.observation.ObservationConvention;
import io.varpulis.transport.Delivery;

import java.util.Map;
import java.util.function.Supplier;

/**
 * A delivery whose headers say its trace is not sampled (SPEC section 14, issue 32): no
 * span and no Observation, only its process timer ({@link UntracedObservations}),
 * recorded when it is settled, with the settlement as its outcome
 * ({@link SettledDelivery}). While it is processed, what it publishes finds it
 * ({@link #current()}) and carries its trace headers through unchanged, so the trace's
 * sampling decision reaches the next hop.
 */
final class UntracedDelivery extends SettledDelivery {

    /**
     * The untraced delivery processed on each thread: a cell per thread, set and reset,
     * never removed.
     */
    private static final ThreadLocal<UntracedDelivery[]> CURRENT = ThreadLocal
        .withInitial(() -> new UntracedDelivery[1]);

    private final ObservationConvention<NatsProcessContext> convention;

    private final UntracedObservations untraced;

    private Map<String, String> carried;

    /**
     * @param delegate the delivery
     * @param context its context, started
     * @param convention its convention
     * @param untraced what times it
     */
    UntracedDelivery(Delivery delegate, NatsProcessContext context,
            ObservationConvention<NatsProcessContext> convention, UntracedObservations untraced) {
        super(delegate, context);
        this.convention = convention;
        this.untraced = untraced;
    }

    /**
     * @return the untraced delivery whose processing runs on this thread, or {@code null}
     */
    static UntracedDelivery current() {
        return CURRENT.get()[0];
    }

    /**
     * @return its trace headers, for what it publishes (read once)
     */
    Map<String, String> carried() {
        Map<String, String> headers = carried;
        if (headers == null) {
            headers = context().carried();
            carried = headers;
        }
        return headers;
    }

    /**
     * Runs the code with this delivery findable by what it publishes
     * ({@link #current()}); no scope is opened.
     */
    @Override
    public <T> T inContext(Supplier<T> work) {
        UntracedDelivery[] cell = CURRENT.get();
        UntracedDelivery outer = cell[0];
        cell[0] = this;
        try {
            return super.inContext(work);
        }
        finally {
            cell[0] = outer;
        }
    }

    @Override
    protected void end(Throwable error) {
        if (error != null) {
            context().setError(error);
        }
        untraced.stop(context(), convention);
    }

}
