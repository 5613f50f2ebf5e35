package io.varpulis.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.varpulis.transport.ClusterTransport;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps every {@link ClusterTransport} bean, auto-configured or the application's own, in
 * a {@link TimedClusterTransport}, so publish latency is measured without touching the
 * transports. Leaves it as it is when there is no {@link MeterRegistry}.
 */
public class PublishTimingPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<MeterRegistry> registry;

    /**
     * @param registry the meter registry, resolved when the first transport is created
     * (not when this processor is)
     */
    public PublishTimingPostProcessor(ObjectProvider<MeterRegistry> registry) {
        this.registry = registry;
    }

    /**
     * @param bean a bean
     * @param beanName its name
     * @return a timed transport when the bean is an untimed transport and a registry
     * exists, else the bean
     */
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ClusterTransport transport && !(bean instanceof TimedClusterTransport)) {
            MeterRegistry meters = registry.getIfAvailable();
            if (meters != null) {
                return new TimedClusterTransport(transport, meters);
            }
        }
        return bean;
    }

}
