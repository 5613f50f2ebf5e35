package io.varpulis.autoconfigure.node;

import io.varpulis.autoconfigure.ConditionalOnSubstrate;
import io.varpulis.autoconfigure.JetStreamAutoConfiguration;
import io.varpulis.autoconfigure.JetStreamStreamsProperties;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.nats.Substrate;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * The three ADR-007 streams of a cluster node on the jetstream substrate: routed events
 * ({@code VARPULIS_ROUTING}), heartbeats ({@code VARPULIS_HEARTBEAT}) and parked events
 * ({@code VARPULIS_DLQ}), as {@link StreamDeclaration} beans that the library's
 * provisioner creates when absent. A node concern (SPEC section 13): imported by the node
 * only ({@link ImportNodeAutoConfiguration}), so a service never reserves
 * {@code VARPULIS_ROUTING}'s 1 GiB nor creates {@code VARPULIS_HEARTBEAT}, whatever its
 * properties say. Each bean may be replaced by name.
 */
@AutoConfiguration(after = JetStreamAutoConfiguration.class, before = ClusterAutoConfiguration.class)
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
@ConditionalOnSubstrate(Substrate.JETSTREAM)
@ConditionalOnBean(JetStreamAdmin.class)
public class ClusterStreamsAutoConfiguration {

    /**
     * @param properties the stream settings ({@code varpulis.nats.jetstream.routing.*})
     * @return {@code VARPULIS_ROUTING}
     */
    @Bean
    @ConditionalOnMissingBean(name = "varpulisRoutingStream")
    public StreamDeclaration varpulisRoutingStream(JetStreamStreamsProperties properties) {
        return properties.routingStream();
    }

    /**
     * @param properties the stream settings ({@code varpulis.nats.jetstream.heartbeat.*})
     * @return {@code VARPULIS_HEARTBEAT}
     */
    @Bean
    @ConditionalOnMissingBean(name = "varpulisHeartbeatStream")
    public StreamDeclaration varpulisHeartbeatStream(JetStreamStreamsProperties properties) {
        return properties.heartbeatStream();
    }

    /**
     * @param properties the stream settings ({@code varpulis.nats.jetstream.dlq.*})
     * @return {@code VARPULIS_DLQ}, declared on a node even before anything parks into it
     */
    @Bean
    @ConditionalOnMissingBean(name = "varpulisDeadLetterStream")
    public StreamDeclaration varpulisDeadLetterStream(JetStreamStreamsProperties properties) {
        return properties.deadLetterStream();
    }

}
