package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryDecorator;

/**
 * Observes every delivery a container processes with a {@code process} observation (SPEC
 * section 14): its parent is read from the delivery's NATS headers (the publisher's
 * trace), it is current while the adapter runs (the container opens its scope through
 * {@link Delivery#inContext}), so what the adapter publishes continues the trace, and it
 * ends when the delivery is settled, with the settlement as its outcome
 * ({@link ObservedDelivery}). Heartbeats are not observed.
 * <p>
 * A delivery whose headers say its trace is not sampled gets no span, so no Observation
 * either when the tracer decides sampling first ({@link Traces#decides()}, issue 32): it
 * is only timed, with the tags its convention gives ({@link UntracedObservations}), and
 * what it publishes carries its trace headers through ({@link UntracedDelivery}). A
 * delivery with no trace headers is only timed too when it comes over a route edge
 * between two pipelines: only the cluster's nodes publish there, and one without headers
 * is an unsampled root's (its publisher wrote none), so its trace stays unsampled at
 * every hop and what it publishes carries none either. Any other delivery without trace
 * headers (on a route edge into the cluster, from an outside producer; a
 * {@code @NatsListener}'s) is decided by the tracer first, as a new trace
 * ({@link NatsReceiverTracingObservationHandler}).
 */
public class ObservedDeliveries implements DeliveryDecorator {

    private final ObservationRegistry registry;

    private final NatsProcessObservationConvention convention;

    private final Traces traces;

    private final UntracedObservations untraced;

    /**
     * Every delivery observed with an Observation, sampled or not.
     * @param registry where observations are recorded
     * @param convention the application's convention for deliveries, or {@code null} for
     * the default
     * @param traces the tracer behind the registry (trace ids for death envelopes), or
     * {@link Traces#NONE}
     */
    public ObservedDeliveries(ObservationRegistry registry, NatsProcessObservationConvention convention,
            Traces traces) {
        this(registry, convention, traces, UntracedObservations.NONE);
    }

    /**
     * @param registry where observations are recorded
     * @param convention the application's convention for deliveries, or {@code null} for
     * the default
     * @param traces the tracer behind the registry (trace ids for death envelopes), or
     * {@link Traces#NONE}
     * @param untraced what times a delivery whose trace is not sampled, or
     * {@link UntracedObservations#NONE} to observe it too
     */
    public ObservedDeliveries(ObservationRegistry registry, NatsProcessObservationConvention convention, Traces traces,
            UntracedObservations untraced) {
        this.registry = registry;
        this.convention = convention;
        this.traces = traces;
        this.untraced = untraced;
    }

    @Override
    public Delivery decorate(ConsumerDeclaration consumer, Delivery delivery) {
        if (registry.isNoop() || Destinations.unobserved(consumer.filterSubject())) {
            return delivery;
        }
        NatsProcessContext context = new NatsProcessContext(consumer, delivery);
        Traces.Sampling decided = Traces.Sampling.UNDECIDED;
        if (context.untraced() && untraced.enabled() && traces.decides()) {
            if (Destinations.internalRoute(delivery.subject())) {
                // The cluster's publisher decided: an unsampled root writes no headers.
                context.sampledOut();
            }
            else {
                decided = traces.decide(context);
            }
        }
        if (context.unsampled() && untraced.enabled() && traces.decides()) {
            ObservationConvention<NatsProcessContext> chosen = untraced.convention(context, convention,
                    DefaultNatsProcessObservationConvention.INSTANCE);
            if (chosen == null) {
                return delivery;
            }
            context.running(true);
            untraced.start(context);
            return new UntracedDelivery(delivery, context, chosen, untraced);
        }
        Observation observation = NatsObservationDocumentation.PROCESS.observation(convention,
                DefaultNatsProcessObservationConvention.INSTANCE, () -> context, registry);
        if (decided == Traces.Sampling.SAMPLED && observation.isNoop()) {
            // A predicate of the registry's own turned it off after the tracer started
            // its span.
            traces.abandon(context);
        }
        observation.start();
        context.running(true);
        return new ObservedDelivery(delivery, observation, context, traces);
    }

}
