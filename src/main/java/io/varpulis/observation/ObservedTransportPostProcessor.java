package io.varpulis.observation;

import io.micrometer.observation.ObservationRegistry;
import io.varpulis.transport.ClusterTransport;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps every {@link ClusterTransport} bean, auto-configured or the application's own, in an
 * {@link ObservedClusterTransport}, so route edges, listener containers, the template, parks and replays are all
 * observed without touching them. Leaves it as it is when there is no {@link ObservationRegistry}.
 */
public class ObservedTransportPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<ObservationRegistry> registry;
    private final ObjectProvider<NatsSendObservationConvention> sendConvention;
    private final ObjectProvider<NatsProcessObservationConvention> processConvention;

    /**
     * @param registry          the observation registry, resolved when the first transport is created
     * @param sendConvention    the application's convention for publishes, if it declares one
     * @param processConvention the application's convention for deliveries, if it declares one
     */
    public ObservedTransportPostProcessor(ObjectProvider<ObservationRegistry> registry,
                                          ObjectProvider<NatsSendObservationConvention> sendConvention,
                                          ObjectProvider<NatsProcessObservationConvention> processConvention) {
        this.registry = registry;
        this.sendConvention = sendConvention;
        this.processConvention = processConvention;
    }

    /**
     * @param bean     a bean
     * @param beanName its name
     * @return an observed transport when the bean is an unobserved transport and a registry exists, else the bean
     */
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ClusterTransport transport && !(bean instanceof ObservedClusterTransport)) {
            ObservationRegistry observations = registry.getIfAvailable();
            if (observations != null) {
                return new ObservedClusterTransport(transport, observations, sendConvention.getIfAvailable(),
                        processConvention.getIfAvailable());
            }
        }
        return bean;
    }
}
