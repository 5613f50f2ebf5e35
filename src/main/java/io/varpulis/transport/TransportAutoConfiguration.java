package io.varpulis.transport;

import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Connection;
import io.varpulis.delivery.DeadLetterParker;
import io.varpulis.delivery.EventCodec;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.JetStreamAutoConfiguration;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsAutoConfiguration;
import io.varpulis.nats.NatsProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

/**
 * Auto-configuration of the {@link ClusterTransport} on the configured substrate, and of what every ingress shares:
 * the {@link EventCodec}, the {@link SubstrateMetrics} and the {@link DeadLetterParker}.
 */
@AutoConfiguration(after = {NatsAutoConfiguration.class, JetStreamAutoConfiguration.class},
        afterName = "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnBean(Connection.class)
public class TransportAutoConfiguration {

    /**
     * @param connection the connection
     * @param substrate  the substrate
     * @param admin      the JetStream admin (present on jetstream only)
     * @param properties the settings
     * @return the transport; its consumptions stop with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ClusterTransport clusterTransport(Connection connection, Substrate substrate,
                                             ObjectProvider<JetStreamAdmin> admin, NatsProperties properties) {
        return ClusterTransports.create(connection, substrate, admin.getIfAvailable(),
                TransportSettings.from(properties.getJetstream()));
    }

    /**
     * @param registry the application's meter registry, or an in-memory one without Actuator
     * @return the substrate meters
     */
    @Bean
    @ConditionalOnMissingBean
    public SubstrateMetrics substrateMetrics(ObjectProvider<MeterRegistry> registry) {
        MeterRegistry meters = registry.getIfAvailable();
        return meters == null ? SubstrateMetrics.inMemory() : new SubstrateMetrics(meters);
    }

    /**
     * @return the routed event codec
     */
    @Bean
    @ConditionalOnMissingBean
    public EventCodec eventCodec() {
        return new EventCodec();
    }

    /**
     * @param transport  publishes envelopes
     * @param codec      its mapper writes them
     * @param metrics    counts parked events
     * @param properties the nak delay when a park fails
     * @return the DLQ parker
     */
    @Bean
    @ConditionalOnMissingBean
    public DeadLetterParker deadLetterParker(ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics,
                                             NatsProperties properties) {
        return new DeadLetterParker(transport, codec.mapper(), metrics,
                properties.getJetstream().getConsumer().getNakDelay(), Clock.systemUTC());
    }
}
