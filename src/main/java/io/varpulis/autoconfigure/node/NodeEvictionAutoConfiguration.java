package io.varpulis.autoconfigure.node;

import io.varpulis.autoconfigure.ConditionalOnSubstrate;
import io.varpulis.cluster.coordinator.ClusterState;
import io.varpulis.cluster.coordinator.RouteEdgeEvictions;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.eviction.EvictionSources;
import io.varpulis.nats.Substrate;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * What a cluster node watches for evictions (issue 43): a coordinator (or standalone
 * node) every route edge of every group and {@code VARPULIS_DLQ}; a worker nothing, the
 * coordinators watching the streams it consumes.
 */
@AutoConfiguration(after = ClusterAutoConfiguration.class)
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
@ConditionalOnSubstrate(Substrate.JETSTREAM)
@ConditionalOnBean(JetStreamAdmin.class)
public class NodeEvictionAutoConfiguration {

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
