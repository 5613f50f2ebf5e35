package io.varpulis.nats;

import io.nats.client.Connection;
import io.nats.client.Options;
import io.varpulis.transport.Substrate;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the NATS connection from {@code varpulis.nats.*}: the {@link Substrate}, the
 * {@link Connection} (retried until the startup timeout) and the {@code nats} health contributor.
 */
@AutoConfiguration
@ConditionalOnClass(Connection.class)
@EnableConfigurationProperties(NatsProperties.class)
public class NatsAutoConfiguration {

    /**
     * @param properties the settings
     * @return the configured substrate
     * @throws InvalidConfigurationPropertyValueException naming {@code varpulis.nats.substrate}, when it is empty
     *                                                    or unknown (never a silent default)
     */
    @Bean
    @ConditionalOnMissingBean
    public Substrate varpulisSubstrate(NatsProperties properties) {
        try {
            return Substrate.parse(properties.getSubstrate());
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.substrate",
                    properties.getSubstrate(), e.getMessage()
                    + ". Set varpulis.nats.substrate (env VARPULIS_NATS_SUBSTRATE) to core or jetstream.");
        }
    }

    /**
     * @param properties the settings
     * @return the listener that logs connection events for operators
     */
    @Bean
    @ConditionalOnMissingBean
    public NatsConnectionEvents natsConnectionEvents(NatsProperties properties) {
        return new NatsConnectionEvents(properties.getReconnectWait());
    }

    /**
     * @param properties  the settings
     * @param events      the connection listener
     * @param environment gives the node's role and id for the default connection name
     * @param substrate   the substrate, resolved first so that a bad value fails before any connection attempt
     * @return the open connection, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Connection natsConnection(NatsProperties properties, NatsConnectionEvents events,
                                     Environment environment, Substrate substrate) {
        String name = properties.getConnectionName() != null ? properties.getConnectionName()
                : defaultConnectionName(environment);
        Options options = NatsConnectionFactory.options(properties, name, events);
        return NatsConnectionFactory.connect(options, properties.getUrl(), properties.getStartupRetryTimeout(),
                events);
    }

    private static String defaultConnectionName(Environment environment) {
        String role = environment.getProperty("varpulis.cluster.role", "standalone").toLowerCase(java.util.Locale.ROOT);
        String id = environment.getProperty("varpulis.cluster.worker-id",
                environment.getProperty("varpulis.cluster.coordinator-id", ""));
        return id.isEmpty() ? "varpulis-" + role : "varpulis-" + role + "-" + id;
    }

    /** The {@code nats} health contributor, when Actuator is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class NatsHealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "natsHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("nats")
        NatsHealthIndicator natsHealthIndicator(Connection connection, Substrate substrate) {
            return new NatsHealthIndicator(connection, substrate);
        }
    }
}
