package io.varpulis.autoconfigure;

import io.nats.client.Connection;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.DeclarationKeeper;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.JetStreamDeclarations;
import io.varpulis.jetstream.JetStreamProvisioner;
import io.varpulis.jetstream.JetStreamUnavailableException;
import io.varpulis.jetstream.LeaderReachReconnect;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.messaging.NatsListenerAnnotationBeanPostProcessor;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.nats.Substrate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import java.util.List;

/**
 * Auto-configuration of JetStream when {@code varpulis.nats.substrate=jetstream}: the
 * streams of {@code varpulis.nats.jetstream.streams.*}, the {@link JetStreamAdmin} that
 * verifies JetStream and provisions every declaration at startup, and the
 * {@link LeaderReachReconnect} that leaves a server cut off from the stream leaders.
 * <p>
 * A service gets what it declares (SPEC section 13): its own streams and consumers, and
 * {@code VARPULIS_DLQ} only when it declares something or runs a {@code @NatsListener}
 * (the stream its listeners park into). The three ADR-007 streams are the node's own
 * ({@code io.varpulis.autoconfigure.node.ClusterStreamsAutoConfiguration}): a service
 * never reserves {@code VARPULIS_ROUTING}'s 1 GiB, nor creates
 * {@code VARPULIS_HEARTBEAT}.
 */
@AutoConfiguration(after = NatsAutoConfiguration.class)
@ConditionalOnSubstrate(Substrate.JETSTREAM)
@ConditionalOnBean(Connection.class)
@EnableConfigurationProperties({ JetStreamStreamsProperties.class, LeaderReachProperties.class })
public class JetStreamAutoConfiguration {

    /**
     * @param properties the stream settings
     * @return the streams declared under {@code varpulis.nats.jetstream.streams.*}
     */
    @Bean
    @ConditionalOnMissingBean(name = "varpulisConfiguredStreams")
    public JetStreamDeclarations varpulisConfiguredStreams(JetStreamStreamsProperties properties) {
        return new JetStreamDeclarations(properties.configuredStreams(), List.of());
    }

    /**
     * @param connection the connection
     * @param events the connection listener (tells missing permissions from timeouts)
     * @return the admin, after JetStream was verified, before anything else talks to
     * JetStream
     * @throws JetStreamUnavailableException when the server has no JetStream (startup
     * fails, no fallback)
     */
    @Bean
    @ConditionalOnMissingBean
    public JetStreamAdmin jetStreamAdmin(Connection connection, ObjectProvider<NatsConnectionEvents> events) {
        JetStreamAdmin admin = new JetStreamAdmin(connection, events.getIfAvailable());
        admin.verifyJetStream();
        return admin;
    }

    /**
     * @param admin the admin
     * @param properties the stream settings ({@code provision}, the DLQ's limits)
     * @param streams every {@link StreamDeclaration} bean
     * @param consumers every {@link ConsumerDeclaration} bean
     * @param declarations every {@link JetStreamDeclarations} bean
     * @param listeners the {@code @NatsListener} methods found, once every singleton
     * exists
     * @return the provisioner, which creates what is absent once all singletons exist,
     * {@code VARPULIS_DLQ} only where something parks into it
     */
    @Bean
    @ConditionalOnMissingBean
    public JetStreamProvisioner jetStreamProvisioner(JetStreamAdmin admin, JetStreamStreamsProperties properties,
            ObjectProvider<StreamDeclaration> streams, ObjectProvider<ConsumerDeclaration> consumers,
            ObjectProvider<JetStreamDeclarations> declarations,
            ObjectProvider<NatsListenerAnnotationBeanPostProcessor> listeners) {
        return new JetStreamProvisioner(admin, streams, consumers, declarations, properties.isProvision(),
                properties.deadLetterStream(),
                () -> listeners.stream().anyMatch(found -> !found.listeners().isEmpty()));
    }

    /**
     * @param connection the connection
     * @param admin the admin (what the node declared, the sequences it saw, the losses)
     * @param properties {@code declarations-check-interval} and {@code provision}
     * @return the keeper that says what the servers lost and declares it again (issue 43)
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public DeclarationKeeper declarationKeeper(Connection connection, JetStreamAdmin admin,
            JetStreamStreamsProperties properties) {
        return new DeclarationKeeper(connection, admin, properties.getDeclarationsCheckInterval(),
                properties.isProvision());
    }

    /**
     * @param connection the connection
     * @param admin the admin (the streams the node uses)
     * @param properties {@code varpulis.nats.jetstream.leader-reach.*}
     * @return the policy that reconnects away from a server that cannot reach the stream
     * leaders (issue 25)
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LeaderReachReconnect leaderReachReconnect(Connection connection, JetStreamAdmin admin,
            LeaderReachProperties properties) {
        return new LeaderReachReconnect(connection, admin, properties.toSettings());
    }

}
