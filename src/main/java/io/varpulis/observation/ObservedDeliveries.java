package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryDecorator;

/**
 * Observes every delivery a container processes with a {@code process} observation (SPEC section 14): its parent is
 * read from the delivery's NATS headers (the publisher's trace), it is current while the adapter runs (the container
 * opens its scope through {@link Delivery#inContext}), so what the adapter publishes continues the trace, and it ends
 * when the delivery is settled, with the settlement as its outcome ({@link ObservedDelivery}). Heartbeats are not
 * observed.
 */
public class ObservedDeliveries implements DeliveryDecorator {

    private final ObservationRegistry registry;
    private final NatsProcessObservationConvention convention;
    private final Traces traces;

    /**
     * @param registry   where observations are recorded
     * @param convention the application's convention for deliveries, or {@code null} for the default
     * @param traces     the tracer behind the registry (trace ids for death envelopes), or {@link Traces#NONE}
     */
    public ObservedDeliveries(ObservationRegistry registry, NatsProcessObservationConvention convention,
                              Traces traces) {
        this.registry = registry;
        this.convention = convention;
        this.traces = traces;
    }

    @Override
    public Delivery decorate(ConsumerDeclaration consumer, Delivery delivery) {
        if (registry.isNoop() || Destinations.unobserved(consumer.filterSubject())) {
            return delivery;
        }
        NatsProcessContext context = new NatsProcessContext(consumer, delivery);
        Observation observation = NatsObservationDocumentation.PROCESS.observation(convention,
                DefaultNatsProcessObservationConvention.INSTANCE, () -> context, registry).start();
        context.running(true);
        return new ObservedDelivery(delivery, observation, context, traces);
    }
}
