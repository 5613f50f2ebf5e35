package io.varpulis.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.metrics.ConsumerLagMetrics;
import io.varpulis.metrics.JetStreamLossMeters;
import io.varpulis.metrics.PublishTimingPostProcessor;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.metrics.TimedClusterTransport;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.time.Duration;

/**
 * Auto-configuration of the substrate's Micrometer meters (SPEC section 7b): the
 * {@link SubstrateMetrics} counters and timers, the publish latency timer
 * {@code varpulis.events.publish} (every {@code ClusterTransport} bean wrapped in a
 * {@link TimedClusterTransport}), and, on JetStream, the consumer lag and stream size
 * gauges.
 */
@AutoConfiguration(after = JetStreamAutoConfiguration.class, before = TransportAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
public class SubstrateMetricsAutoConfiguration {

    /**
     * @param registry the application's meter registry, or an in-memory one without
     * Actuator
     * @return the substrate meters
     */
    @Bean
    @ConditionalOnMissingBean
    public SubstrateMetrics substrateMetrics(ObjectProvider<MeterRegistry> registry) {
        MeterRegistry meters = registry.getIfAvailable();
        return meters == null ? SubstrateMetrics.inMemory() : new SubstrateMetrics(meters);
    }

    /**
     * Static, so that declaring it does not create this configuration (and its
     * dependencies) before the other post-processors.
     * @param registry the meter registry, looked up lazily
     * @return the post-processor
     */
    @Bean
    public static PublishTimingPostProcessor varpulisPublishTimingPostProcessor(
            ObjectProvider<MeterRegistry> registry) {
        return new PublishTimingPostProcessor(registry);
    }

    /**
     * @param admin the JetStream admin (present on jetstream only)
     * @param registry the meter registry
     * @return the consumer lag and stream gauges, refreshed every 10 s
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean({ JetStreamAdmin.class, MeterRegistry.class })
    public ConsumerLagMetrics consumerLagMetrics(JetStreamAdmin admin, MeterRegistry registry) {
        return new ConsumerLagMetrics(admin, registry, Duration.ofSeconds(10));
    }

    /**
     * @param admin the JetStream admin (present on jetstream only)
     * @param registry the meter registry
     * @return the counters of what the servers lost ({@code varpulis.jetstream.losses},
     * {@code varpulis.events.lost}, issue 43)
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean({ JetStreamAdmin.class, MeterRegistry.class })
    public JetStreamLossMeters jetStreamLossMeters(JetStreamAdmin admin, MeterRegistry registry) {
        return new JetStreamLossMeters(admin.losses(), registry);
    }

}
