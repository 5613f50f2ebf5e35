package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;

/**
 * Tracing for the substrate's observations whose trace is known not to be sampled (SPEC section 14, issue 32): a
 * delivery whose headers say so ({@link NatsProcessContext#unsampled()}) and what is published while it is processed
 * ({@link NatsSendContext#unsampled()}). No span is made for them, sampled out or not: the publishes carry the
 * delivery's trace headers through unchanged, so the trace's sampling decision reaches the next hop intact. Spring
 * Boot registers tracing handlers first-matching in bean order, so this one, ordered first, keeps Boot's own tracing
 * handlers away from these observations; any other observation (a sampled one, a root whose sampling the tracer
 * decides, or another library's) is left to them.
 * <p>An observation of another library started inside an unsampled delivery's processing (an HTTP client call) sees
 * no parent span and starts a trace of its own, sampled at the tracer's probability.
 */
public class UnsampledTracingHandler implements TracingObservationHandler<Observation.Context> {

    private final Tracer tracer;

    /**
     * @param tracer the application's tracer (what the interface asks; no span is made with it)
     */
    public UnsampledTracingHandler(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof NatsProcessContext process && process.unsampled()
                || context instanceof NatsSendContext send && send.unsampled();
    }

    /** What Micrometer's exemplar-aware meter handler finds on an unsampled observation: a context without span. */
    private static final TracingContext NO_SPAN = new TracingContext();

    /**
     * Writes a publish's carried trace headers; leaves an empty tracing context on the observation, which Micrometer's
     * exemplar-aware meter handler (Spring Boot wraps every meter handler in it) requires and finds without a span.
     */
    @Override
    public void onStart(Observation.Context context) {
        if (context instanceof NatsSendContext send) {
            send.attach(TracingContext.class, NO_SPAN);
            send.writeCarried();
        } else if (context instanceof NatsProcessContext process) {
            process.attach(TracingContext.class, NO_SPAN);
        }
    }

    @Override
    public void onStop(Observation.Context context) {
    }

    @Override
    public void onError(Observation.Context context) {
    }

    @Override
    public void onEvent(Observation.Event event, Observation.Context context) {
    }

    @Override
    public void onScopeOpened(Observation.Context context) {
    }

    @Override
    public void onScopeClosed(Observation.Context context) {
    }

    @Override
    public void onScopeReset(Observation.Context context) {
    }

    @Override
    public Tracer getTracer() {
        return tracer;
    }
}
