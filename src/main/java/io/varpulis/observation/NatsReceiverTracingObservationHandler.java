package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;

/**
 * Micrometer's receiver tracing handler, asked for a delivery's span before its
 * observation is built (SPEC section 14, issue 32), for a delivery that carries no trace
 * headers: its publisher sampled its trace out (an unsampled root writes none:
 * {@link NatsSenderTracingObservationHandler}), or traces nothing. {@link #decide} starts
 * the span exactly as the handler would when the observation starts (extracted from the
 * delivery's headers, so a new trace the tracer's sampler decides; kind consumer, remote
 * service {@code nats}):
 * <ul>
 * <li>a span that records nothing is abandoned, and the delivery is only timed
 * ({@link UntracedObservations}), without an Observation;</li>
 * <li>a recording span is kept in the context; this handler, ordered first among Spring
 * Boot's tracing handlers (first-matching), takes the observation then and makes that
 * span its own, so the sampler is asked once per delivery, not twice.</li>
 * </ul>
 * A delivery whose headers carry a trace is left to Boot's handlers, as is every other
 * observation.
 */
public class NatsReceiverTracingObservationHandler
        extends PropagatingReceiverTracingObservationHandler<NatsProcessContext> {

    private final Propagator propagator;

    /**
     * @param tracer the application's tracer
     * @param propagator the application's propagator (W3C or B3, as Spring Boot
     * configures it)
     */
    public NatsReceiverTracingObservationHandler(Tracer tracer, Propagator propagator) {
        super(tracer, propagator);
        this.propagator = propagator;
    }

    /**
     * Starts the delivery's span before its observation, as {@link #onStart} would.
     * @param context the delivery's context, not yet observed
     * @return {@code true} when the span records (sampled): the observation must be
     * started, and this handler gives it that span; {@code false} when the tracer sampled
     * the trace out: the span is abandoned, and the delivery needs no observation
     */
    public boolean decide(NatsProcessContext context) {
        Span.Builder builder = propagator.extract(context.getCarrier(),
                (carrier, key) -> context.getGetter().get(carrier, key));
        builder.kind(Span.Kind.CONSUMER);
        if (context.getRemoteServiceName() != null) {
            builder.remoteServiceName(context.getRemoteServiceName());
        }
        Span span = customizeExtractedSpan(context, builder).start();
        if (span.isNoop()) {
            span.abandon();
            context.sampledOut();
            return false;
        }
        context.decided(span);
        return true;
    }

    /**
     * Abandons the span {@link #decide} started for a delivery whose observation did not
     * start (turned off by a predicate of the registry's own): nothing is reported.
     * @param context the delivery's context
     */
    public void abandon(NatsProcessContext context) {
        if (context.decided() instanceof Span span) {
            span.abandon();
        }
    }

    /**
     * @param context an observation's context
     * @return whether it is a delivery whose span {@link #decide} started
     */
    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof NatsProcessContext process && process.decided() != null;
    }

    /**
     * Makes the span {@link #decide} started the observation's.
     * @param context a delivery's context
     */
    @Override
    public void onStart(NatsProcessContext context) {
        getTracingContext(context).setSpan((Span) context.decided());
    }

}
