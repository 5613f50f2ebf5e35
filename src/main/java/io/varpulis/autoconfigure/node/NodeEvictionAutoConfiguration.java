package io.varpulis.autoconfigure.node;

import io.nats.client.Connection;
import io.varpulis.autoconfigure.ConditionalOnSubstrate;
import io.varpulis.autoconfigure.JetStreamAutoConfiguration;
import io.varpulis.autoconfigure.JetStreamDurabilityAutoConfiguration;
import io.varpulis.autoconfigure.JetStreamStreamsProperties;
import io.varpulis.cluster.coordinator.ClusterState;
import io.varpulis.cluster.coordinator.RouteEdgeEvictions;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.eviction.EvictionLedger;
import io.varpulis.jetstream.eviction.EvictionSources;
import io.varpulis.jetstream.eviction.KeyValueEvictionLedger;
import io.varpulis.nats.Substrate;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * What a cluster node watches for evictions (issue 43): a coordinator (or standalone
 * node) every route edge of every group and {@code VARPULIS_DLQ}; a worker nothing, the
 * coordinators watching the streams it consumes. The coordinators share their ledger (the
 * bucket {@value KeyValueEvictionLedger#BUCKET}), so that one of them counts each
 * eviction, whichever leads.
 */
@AutoConfiguration(after = JetStreamAutoConfiguration.class, before = JetStreamDurabilityAutoConfiguration.class)
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
@ConditionalOnSubstrate(Substrate.JETSTREAM)
@ConditionalOnBean(JetStreamAdmin.class)
public class NodeEvictionAutoConfiguration {

    /**
     * @param connection the connection
     * @param streams {@code varpulis.nats.jetstream.replicas}, the bucket's replicas
     * @return the ledger the coordinators share
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "varpulis.nats.jetstream.evictions", name = "enabled", matchIfMissing = true)
    public EvictionLedger sharedEvictionLedger(Connection connection, JetStreamStreamsProperties streams) {
        return new KeyValueEvictionLedger(connection, streams.getReplicas());
    }

    /**
     * @param state the groups the coordinator knows
     * @return every route edge's consumer and the DLQ
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnClusterRole(ConditionalOnClusterRole.Part.COORDINATOR)
    public EvictionSources coordinatorEvictionSources(ClusterState state) {
        return new RouteEdgeEvictions(state);
    }

    /**
     * @return nothing: a worker-only node leaves the cluster's streams to the
     * coordinators
     */
    @Bean
    @ConditionalOnMissingBean
    public EvictionSources workerEvictionSources() {
        return EvictionSources.NONE;
    }

}
