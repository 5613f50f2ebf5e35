package io.varpulis.autoconfigure;

import io.nats.client.Connection;
import io.varpulis.delivery.DeadLetterParker;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.RequestReply;
import io.varpulis.transport.TransportSettings;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

/**
 * Auto-configuration of the {@link ClusterTransport} on the configured substrate, and of what every ingress shares:
 * the {@link EventCodec} and the {@link DeadLetterParker}.
 */
@AutoConfiguration(after = {NatsAutoConfiguration.class, JetStreamAutoConfiguration.class,
        SubstrateMetricsAutoConfiguration.class})
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
     * @return core request/reply for commands and registration, observed when observation is on
     */
    @Bean
    @ConditionalOnMissingBean
    public RequestReply requestReply() {
        return RequestReply.PLAIN;
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
