package io.varpulis.autoconfigure;

import io.nats.client.Connection;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.JetStreamDeclarations;
import io.varpulis.jetstream.JetStreamProvisioner;
import io.varpulis.jetstream.JetStreamUnavailableException;
import io.varpulis.jetstream.LeaderReachProperties;
import io.varpulis.jetstream.LeaderReachReconnect;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Substrate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import java.util.ArrayList;
import java.util.List;

/**
 * Auto-configuration of JetStream when {@code varpulis.nats.substrate=jetstream}: the three ADR-007 streams as
 * {@link StreamDeclaration} beans, the streams of {@code varpulis.nats.jetstream.streams.*}, the
 * {@link JetStreamAdmin} that verifies JetStream and provisions every declaration at startup, and the
 * {@link LeaderReachReconnect} that leaves a server cut off from the stream leaders.
 */
@AutoConfiguration(after = NatsAutoConfiguration.class)
@ConditionalOnSubstrate(Substrate.JETSTREAM)
@ConditionalOnBean(Connection.class)
@EnableConfigurationProperties(LeaderReachProperties.class)
public class JetStreamAutoConfiguration {

    /**
     * @param properties the settings
     * @return {@code VARPULIS_ROUTING}
     */
    @Bean
    @ConditionalOnMissingBean(name = "varpulisRoutingStream")
    public StreamDeclaration varpulisRoutingStream(NatsProperties properties) {
        return VarpulisJetStream.routing(properties.getJetstream());
    }

    /**
     * @param properties the settings
     * @return {@code VARPULIS_HEARTBEAT}
     */
    @Bean
    @ConditionalOnMissingBean(name = "varpulisHeartbeatStream")
    public StreamDeclaration varpulisHeartbeatStream(NatsProperties properties) {
        return VarpulisJetStream.heartbeat(properties.getJetstream());
    }

    /**
     * @param properties the settings
     * @return {@code VARPULIS_DLQ}
     */
    @Bean
    @ConditionalOnMissingBean(name = "varpulisDeadLetterStream")
    public StreamDeclaration varpulisDeadLetterStream(NatsProperties properties) {
        return VarpulisJetStream.deadLetters(properties.getJetstream());
    }

    /**
     * @param properties the settings
     * @return the streams declared under {@code varpulis.nats.jetstream.streams.*}
     */
    @Bean
    @ConditionalOnMissingBean(name = "varpulisConfiguredStreams")
    public JetStreamDeclarations varpulisConfiguredStreams(NatsProperties properties) {
        NatsProperties.JetStream js = properties.getJetstream();
        List<StreamDeclaration> streams = new ArrayList<>();
        js.getStreams().forEach((name, spec) -> streams.add(ConfiguredStreams.declaration(name, spec,
                js.getReplicas())));
        return new JetStreamDeclarations(streams, List.of());
    }

    /**
     * @param connection the connection
     * @param events     the connection listener (tells missing permissions from timeouts)
     * @return the admin, after JetStream was verified, before anything else talks to JetStream
     * @throws JetStreamUnavailableException when the server has no JetStream (startup fails, no fallback)
     */
    @Bean
    @ConditionalOnMissingBean
    public JetStreamAdmin jetStreamAdmin(Connection connection, ObjectProvider<NatsConnectionEvents> events) {
        JetStreamAdmin admin = new JetStreamAdmin(connection, events.getIfAvailable());
        admin.verifyJetStream();
        return admin;
    }

    /**
     * @param admin        the admin
     * @param properties   the settings ({@code provision})
     * @param streams      every {@link StreamDeclaration} bean
     * @param consumers    every {@link ConsumerDeclaration} bean
     * @param declarations every {@link JetStreamDeclarations} bean
     * @return the provisioner, which creates what is absent once all singletons exist
     */
    @Bean
    @ConditionalOnMissingBean
    public JetStreamProvisioner jetStreamProvisioner(JetStreamAdmin admin, NatsProperties properties,
                                                     ObjectProvider<StreamDeclaration> streams,
                                                     ObjectProvider<ConsumerDeclaration> consumers,
                                                     ObjectProvider<JetStreamDeclarations> declarations) {
        return new JetStreamProvisioner(admin, streams, consumers, declarations,
                properties.getJetstream().isProvision());
    }

    /**
     * @param connection the connection
     * @param admin      the admin (the streams the node uses)
     * @param properties {@code varpulis.nats.jetstream.leader-reach.*}
     * @return the policy that reconnects away from a server that cannot reach the stream leaders (issue 25)
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LeaderReachReconnect leaderReachReconnect(Connection connection, JetStreamAdmin admin,
                                                     LeaderReachProperties properties) {
        return new LeaderReachReconnect(connection, admin, properties);
    }
}
