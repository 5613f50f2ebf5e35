package io.varpulis.autoconfigure;

import io.nats.client.Connection;
import io.nats.client.Options;
import io.varpulis.nats.NatsConnectionDetails;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.nats.NatsConnectionFactory;
import io.varpulis.nats.Substrate;
import io.varpulis.nats.SubstrateEditor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the NATS connection: the {@link Substrate}, the
 * {@link NatsConnectionDetails} (from {@code varpulis.nats.*} unless a
 * {@code @ServiceConnection} or Docker Compose supplied them) and the {@link Connection},
 * retried until the startup timeout.
 */
@AutoConfiguration(after = SslAutoConfiguration.class)
@ConditionalOnClass(Connection.class)
@EnableConfigurationProperties({ NatsConnectionProperties.class, JetStreamPublishProperties.class,
        JetStreamConsumerProperties.class, JetStreamStreamsProperties.class })
public class NatsAutoConfiguration {

    /**
     * @param properties {@code varpulis.nats.substrate}
     * @param environment where an empty {@code varpulis.nats.substrate} is seen
     * @return the configured substrate
     */
    @Bean
    @ConditionalOnMissingBean
    public Substrate varpulisSubstrate(NatsConnectionProperties properties, Environment environment) {
        // Spring Boot binds an empty value as no value at all: the default must not hide
        // it (never a silent default).
        String configured = environment.getProperty(SubstrateEditor.PROPERTY);
        return configured != null && configured.isBlank() ? SubstrateEditor.convert(configured)
                : properties.getSubstrate();
    }

    /**
     * @param properties the settings
     * @param sslBundles the application's SSL bundles, for
     * {@code varpulis.nats.tls.bundle}
     * @return the connection details of {@code varpulis.nats.*}, checked (a bad value
     * fails startup naming the property)
     */
    @Bean
    @ConditionalOnMissingBean(NatsConnectionDetails.class)
    public PropertiesNatsConnectionDetails natsConnectionDetails(NatsConnectionProperties properties,
            ObjectProvider<SslBundles> sslBundles) {
        return new PropertiesNatsConnectionDetails(properties, sslBundles.getIfAvailable());
    }

    /**
     * @param properties the settings
     * @return the listener that logs connection events for operators
     */
    @Bean
    @ConditionalOnMissingBean
    public NatsConnectionEvents natsConnectionEvents(NatsConnectionProperties properties) {
        return new NatsConnectionEvents(properties.getReconnectWait());
    }

    /**
     * @param details where and how to connect
     * @param properties timeouts, inbox and the connection name
     * @param publishing the late PubAck window (the request cleanup interval)
     * @param events the connection listener
     * @param environment gives the node's role and id for the default connection name
     * @param substrate the substrate, resolved first so that a bad value fails before any
     * connection attempt
     * @return the open connection, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Connection natsConnection(NatsConnectionDetails details, NatsConnectionProperties properties,
            JetStreamPublishProperties publishing, NatsConnectionEvents events, Environment environment,
            Substrate substrate) {
        String name = properties.getConnectionName() != null ? properties.getConnectionName()
                : defaultConnectionName(environment);
        Options options = NatsConnectionFactory.options(details,
                properties.toSettings(publishing.getLatePubAckWindow()), name, events);
        return NatsConnectionFactory.connect(options, String.join(",", details.getServers()),
                properties.getStartupRetryTimeout(), events);
    }

    private static String defaultConnectionName(Environment environment) {
        return environment.getProperty("spring.application.name", "varpulis");
    }

}
