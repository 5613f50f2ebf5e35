package io.varpulis.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.varpulis.transport.ClusterTransport;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;

/**
 * Wraps every {@link ClusterTransport} bean, auto-configured or the application's own, in
 * a {@link TimedClusterTransport}, so publish latency is measured without touching the
 * transports. Leaves it as it is when there is no {@link MeterRegistry}. It runs before
 * the observation's post-processor ({@link #ORDER}), so an observed transport wraps the
 * timed one and the timer measures the publish alone, not the observation around it.
 */
public class PublishTimingPostProcessor implements BeanPostProcessor, Ordered {

    /** Before {@code ObservedTransportPostProcessor.ORDER}: the timer sits inside. */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 1;

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

    /**
     * @return {@link #ORDER}
     */
    @Override
    public int getOrder() {
        return ORDER;
    }

}
