package io.varpulis.autoconfigure;

import io.nats.client.Connection;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.dlq.DeadLetterEndpoint;
import io.varpulis.nats.Substrate;
import io.varpulis.dlq.DeathEnvelope;
import io.varpulis.transport.ClusterTransport;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the dead-letter console on the jetstream substrate (core parks
 * nothing): the {@link DeadLetterConsole}, the Actuator endpoint {@code dlq} (expose it
 * with {@code management.endpoints.web.exposure.include}). The node's HTTP API over it is
 * auto-configured by the node (DeadLetterApiAutoConfiguration). Writes stay off unless
 * {@code varpulis.dlq.write-enabled=true}.
 */
@AutoConfiguration(after = { JetStreamAutoConfiguration.class, TransportAutoConfiguration.class })
@ConditionalOnSubstrate(Substrate.JETSTREAM)
@ConditionalOnBean({ Connection.class, ClusterTransport.class })
@EnableConfigurationProperties(DeadLetterProperties.class)
public class DeadLetterAutoConfiguration {

    /**
     * @param connection the connection (its JetStream management API reads and deletes
     * parked events)
     * @param transport re-publishes replayed events
     * @param properties the {@code varpulis.dlq.*} settings
     * @return the console
     */
    @Bean
    @ConditionalOnMissingBean
    public DeadLetterConsole deadLetterConsole(Connection connection, ClusterTransport transport,
            DeadLetterProperties properties) {
        return new DeadLetterConsole(connection, transport, DeathEnvelope.jsonMapper(), properties.toSettings());
    }

    /**
     * The Actuator endpoint, when Actuator is present and the endpoint is enabled and
     * exposed.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static class DeadLetterEndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        DeadLetterEndpoint deadLetterEndpoint(DeadLetterConsole console) {
            return new DeadLetterEndpoint(console);
        }

    }

}
