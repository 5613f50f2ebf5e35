package io.varpulis.observation;

import io.micrometer.observation.ObservationRegistry;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.RequestReply;
import io.varpulis.transport.Requester;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;

/**
 * Wraps every {@link ClusterTransport} bean, auto-configured or the application's own, in
 * an {@link ObservedClusterTransport}, every {@link RequestReply} bean (commands,
 * registration) in an {@link ObservedRequestReply}, and every {@link Requester} bean (a
 * template's requests) in an {@link ObservedRequester}, so route edges, listener
 * containers, the template, its requests, parks, replays, commands and registrations are
 * all observed without touching them. Leaves them as they are when there is no
 * {@link ObservationRegistry}. It runs last of the product's post-processors
 * ({@link #ORDER}): a transport's publish timer sits inside its observation.
 */
public class ObservedTransportPostProcessor implements BeanPostProcessor, Ordered {

    /**
     * After the publish timer's post-processor: the observation wraps the timed
     * transport.
     */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE;

    private final ObjectProvider<ObservationRegistry> registry;

    private final ObjectProvider<NatsSendObservationConvention> sendConvention;

    private final ObjectProvider<NatsProcessObservationConvention> processConvention;

    private final ObjectProvider<Traces> traces;

    private final ObjectProvider<UntracedObservations> untraced;

    /**
     * @param registry the observation registry, resolved when the first transport is
     * created
     * @param sendConvention the application's convention for publishes, if it declares
     * one
     * @param processConvention the application's convention for deliveries, if it
     * declares one
     * @param traces the tracer's trace ids, links and sampling decisions, if there is a
     * tracer
     * @param untraced what times a publish whose trace is not sampled, if declared
     */
    public ObservedTransportPostProcessor(ObjectProvider<ObservationRegistry> registry,
            ObjectProvider<NatsSendObservationConvention> sendConvention,
            ObjectProvider<NatsProcessObservationConvention> processConvention, ObjectProvider<Traces> traces,
            ObjectProvider<UntracedObservations> untraced) {
        this.registry = registry;
        this.sendConvention = sendConvention;
        this.processConvention = processConvention;
        this.traces = traces;
        this.untraced = untraced;
    }

    /**
     * @param bean a bean
     * @param beanName its name
     * @return an observed transport (request/reply) when the bean is an unobserved one
     * and a registry exists, else the bean
     */
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ClusterTransport transport && !(bean instanceof ObservedClusterTransport)) {
            ObservationRegistry observations = registry.getIfAvailable();
            if (observations != null) {
                return new ObservedClusterTransport(transport, observations, sendConvention.getIfAvailable(),
                        processConvention.getIfAvailable(), traces.getIfAvailable(() -> Traces.NONE),
                        untraced.getIfAvailable(() -> UntracedObservations.NONE));
            }
        }
        if (bean instanceof RequestReply requests && !(bean instanceof ObservedRequestReply)) {
            ObservationRegistry observations = registry.getIfAvailable();
            if (observations != null) {
                return new ObservedRequestReply(requests, observations, sendConvention.getIfAvailable());
            }
        }
        if (bean instanceof Requester requester && !(bean instanceof ObservedRequester)) {
            ObservationRegistry observations = registry.getIfAvailable();
            if (observations != null) {
                return new ObservedRequester(requester, observations, sendConvention.getIfAvailable());
            }
        }
        return bean;
    }

    /**
     * @return {@link #ORDER}
     */
    @Override
    public int getOrder() {
        return ORDER;
    }

}
