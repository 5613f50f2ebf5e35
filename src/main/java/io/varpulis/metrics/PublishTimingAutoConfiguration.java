package io.varpulis.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the publish latency timer {@code varpulis.events.publish}: every {@code ClusterTransport}
 * bean is wrapped in a {@link TimedClusterTransport} by a {@link PublishTimingPostProcessor}.
 */
@AutoConfiguration
@ConditionalOnClass(MeterRegistry.class)
public class PublishTimingAutoConfiguration {

    /**
     * Static, so that declaring it does not create this configuration (and its dependencies) before the other
     * post-processors.
     *
     * @param registry the meter registry, looked up lazily
     * @return the post-processor
     */
    @Bean
    public static PublishTimingPostProcessor varpulisPublishTimingPostProcessor(
            ObjectProvider<MeterRegistry> registry) {
        return new PublishTimingPostProcessor(registry);
    }
}
