package io.varpulis.autoconfigure;

import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.health.DeliveryContainersHealthIndicator;
import io.nats.client.Connection;
import io.varpulis.health.JetStreamHealthIndicator;
import io.varpulis.health.NatsHealthIndicator;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.ServerSyncCheck;
import io.varpulis.nats.Substrate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the health contributors {@code nats} (connection) and, on
 * JetStream, {@code jetstream} (streams, drift, consumers, DLQ depth), when Spring Boot's
 * health module is present. Both belong to the readiness group, never to liveness (SPEC
 * section 7b). And {@code deliveryContainers}: an apply past its timeout, a container an
 * error stopped (SPEC section 18).
 */
@AutoConfiguration(
        after = { NatsAutoConfiguration.class, JetStreamAutoConfiguration.class, TransportAutoConfiguration.class })
@ConditionalOnClass(ConditionalOnEnabledHealthIndicator.class)
@ConditionalOnBean(Connection.class)
@EnableConfigurationProperties(JetStreamHealthProperties.class)
public class VarpulisHealthContributorAutoConfiguration {

    /**
     * @param connection the connection
     * @param substrate the substrate, shown in the details
     * @return the {@code nats} contributor
     */
    @Bean
    @ConditionalOnMissingBean(name = "natsHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("nats")
    public NatsHealthIndicator natsHealthIndicator(Connection connection, Substrate substrate) {
        return new NatsHealthIndicator(connection, substrate);
    }

    /**
     * @param containers the delivery containers' factory
     * @return the {@code deliveryContainers} contributor
     */
    @Bean
    @ConditionalOnMissingBean(name = "deliveryContainersHealthIndicator")
    @ConditionalOnBean(DeliveryContainerFactory.class)
    @ConditionalOnEnabledHealthIndicator("deliveryContainers")
    public DeliveryContainersHealthIndicator deliveryContainersHealthIndicator(DeliveryContainerFactory containers) {
        return new DeliveryContainersHealthIndicator(containers.containers());
    }

    /**
     * @param admin the JetStream admin
     * @param connection the connection
     * @param properties {@code varpulis.nats.jetstream.health-refresh-interval}
     * @param reach {@code varpulis.nats.jetstream.leader-reach.down-after} (its default
     * without the bean)
     * @param sync whether the servers sync every write, its {@code sync} detail
     * @return the {@code jetstream} contributor, asking the server in the background once
     * the context has started
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "jetstreamHealthIndicator")
    @ConditionalOnBean(JetStreamAdmin.class)
    @ConditionalOnEnabledHealthIndicator("jetstream")
    public JetStreamHealthIndicator jetstreamHealthIndicator(JetStreamAdmin admin, Connection connection,
            JetStreamHealthProperties properties, ObjectProvider<LeaderReachProperties> reach,
            ObjectProvider<ServerSyncCheck> sync) {
        return new JetStreamHealthIndicator(admin, connection, properties.getHealthRefreshInterval(),
                reach.getIfAvailable(LeaderReachProperties::new).getDownAfter(), sync.getIfAvailable());
    }

}
