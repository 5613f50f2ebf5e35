package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;

/**
 * Micrometer's sender tracing handler, asked for a publish's span before its observation
 * is built (SPEC section 14, issue 32). {@link #decide} starts the span exactly as the
 * handler would when the observation starts (the child of the current span, or a new
 * trace that the tracer's sampler decides; kind producer, remote service {@code nats}):
 * <ul>
 * <li>a span that records nothing (the tracer sampled the trace out) makes the publish
 * only timed ({@link UntracedObservations}), without an Observation; its context is
 * written into the message's headers when it continues a trace (the child of an unsampled
 * current span, whose caller's decision the next hop must honour) or goes onto a route
 * edge into the cluster (where a delivery without headers is an outside producer's, whose
 * trace the first pipeline starts). Any other root the sampler sampled out writes no
 * header at all: an unsampled event pays no header work (issue 32); on a route edge
 * between pipelines the next hop keeps it unsampled, elsewhere it asks its own sampler,
 * as for any message published without a trace
 * ({@link NatsReceiverTracingObservationHandler}, {@link ObservedDeliveries});</li>
 * <li>a recording span is kept in the context; this handler, ordered first among Spring
 * Boot's tracing handlers (first-matching), takes the observation then and makes that
 * span its own, so the sampler is asked once per publish, not twice.</li>
 * </ul>
 * Every other observation (a publish it was not asked about, another library's) is left
 * to Boot's handlers.
 */
public class NatsSenderTracingObservationHandler extends PropagatingSenderTracingObservationHandler<NatsSendContext> {

    private final Propagator propagator;

    /**
     * @param tracer the application's tracer
     * @param propagator the application's propagator (W3C or B3, as Spring Boot
     * configures it)
     */
    public NatsSenderTracingObservationHandler(Tracer tracer, Propagator propagator) {
        super(tracer, propagator);
        this.propagator = propagator;
    }

    /**
     * Starts the publish's span before its observation: its parent is the current span
     * (set the context's parent observation first, as Micrometer does when it builds
     * one).
     * @param context the publish's context, not yet observed
     * @return {@code true} when the span records (sampled): the observation must be
     * started, and this handler gives it that span; {@code false} when the tracer sampled
     * the trace out: the span is ended, its context written into the context's carrier
     * when it has a parent (a root's is not), and the publish needs no observation
     */
    public boolean decide(NatsSendContext context) {
        // Asked before the span is made, of the tracer and not of the span: with the
        // OpenTelemetry bridge a sampled-out span knows no parent.
        boolean continues = getParentSpan(context) != null || getTracer().currentSpan() != null;
        Span span = super.createSenderSpan(context);
        if (span.isNoop()) {
            if (continues || Destinations.entry(context.subject())) {
                propagator.inject(span.context(), context.getCarrier(),
                        (carrier, key, value) -> context.getSetter().set(carrier, key, value));
            }
            span.end();
            context.sampledOut();
            return false;
        }
        context.decided(span);
        return true;
    }

    /**
     * Abandons the span {@link #decide} started for a publish whose observation did not
     * start (turned off by a predicate of the registry's own): nothing is reported.
     * @param context the publish's context
     */
    public void abandon(NatsSendContext context) {
        if (context.decided() instanceof Span span) {
            span.abandon();
        }
    }

    /**
     * @param context an observation's context
     * @return whether it is a publish whose span {@link #decide} started
     */
    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof NatsSendContext send && send.decided() != null;
    }

    /**
     * @param context a publish's context
     * @return the span {@link #decide} started for it
     */
    @Override
    public Span createSenderSpan(NatsSendContext context) {
        return (Span) context.decided();
    }

}
