package io.varpulis.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Connection;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.ServerSyncCheck;
import io.varpulis.jetstream.eviction.EvictionDetector;
import io.varpulis.jetstream.eviction.EvictionLedger;
import io.varpulis.jetstream.eviction.EvictionListener;
import io.varpulis.jetstream.eviction.EvictionSources;
import io.varpulis.jetstream.eviction.KeyValueEvictionLedger;
import io.varpulis.metrics.EvictionMeters;
import io.varpulis.metrics.ServerSyncGauge;
import io.varpulis.nats.Substrate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * On JetStream, what watches the ways out of a stream that no delivery sees (issue 43,
 * SPEC section 21): the {@link ServerSyncCheck} (whether the nats-servers sync every
 * write; a WARN, the {@code jetstream} health's {@code sync} detail and the
 * {@code varpulis.jetstream.sync.always} gauge) and the {@link EvictionDetector} (events
 * the streams drop unconsumed; an ERROR and {@code varpulis.events.evicted}). A service
 * watches the consumers it declared and its {@code VARPULIS_DLQ}; a cluster node replaces
 * the {@link EvictionSources} (its coordinators watch every route edge) and the
 * {@link EvictionLedger} (its coordinators share one, so that one of them counts each
 * eviction).
 */
@AutoConfiguration(after = { JetStreamAutoConfiguration.class, SubstrateMetricsAutoConfiguration.class },
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnSubstrate(Substrate.JETSTREAM)
@ConditionalOnBean(JetStreamAdmin.class)
@EnableConfigurationProperties({ JetStreamDurabilityProperties.class, JetStreamStreamsProperties.class })
public class JetStreamDurabilityAutoConfiguration {

    /**
     * @param connection the connection, whose server's version is read
     * @param properties {@code varpulis.nats.jetstream.sync-check.*}
     * @return the check, run when the context starts and every interval
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ServerSyncCheck serverSyncCheck(Connection connection, JetStreamDurabilityProperties properties) {
        return new ServerSyncCheck(connection, properties.getSyncCheck().getMonitoringUrls(),
                properties.getSyncCheck().getInterval());
    }

    /**
     * @param check the sync check
     * @return the gauge {@code varpulis.jetstream.sync.always}, bound by Spring Boot's
     * meter registry
     */
    @Bean
    @ConditionalOnMissingBean
    public ServerSyncGauge serverSyncGauge(ServerSyncCheck check) {
        return new ServerSyncGauge(check);
    }

    /**
     * @param connection the connection, for the shared ledger's bucket
     * @param streams {@code varpulis.nats.jetstream.replicas}, the bucket's replicas
     * @param properties {@code varpulis.nats.jetstream.evictions.shared-ledger}
     * @return pages in memory (a service gets only what it declares on the server), or
     * the bucket {@value KeyValueEvictionLedger#BUCKET} its instances share
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "varpulis.nats.jetstream.evictions", name = "enabled", matchIfMissing = true)
    public EvictionLedger evictionLedger(Connection connection, JetStreamStreamsProperties streams,
            JetStreamDurabilityProperties properties) {
        return properties.getEvictions().isSharedLedger()
                ? new KeyValueEvictionLedger(connection, streams.getReplicas()) : EvictionLedger.inMemory();
    }

    /**
     * @param admin the admin, which asks the server and knows the declarations
     * @param ledger the shared ledger
     * @param sources a node's sources, or none: the consumers and DLQ declared here
     * @param registry the meter registry, when there is one
     * @param properties {@code varpulis.nats.jetstream.evictions.interval}
     * @return the detector, looking when the context starts and every interval
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(EvictionLedger.class)
    public EvictionDetector evictionDetector(JetStreamAdmin admin, EvictionLedger ledger,
            ObjectProvider<EvictionSources> sources, ObjectProvider<MeterRegistry> registry,
            JetStreamDurabilityProperties properties) {
        MeterRegistry meters = registry.getIfAvailable();
        EvictionListener listener = meters == null ? EvictionListener.NONE : new EvictionMeters(meters);
        return new EvictionDetector(admin, ledger, sources.getIfAvailable(() -> EvictionSources.declared(admin)),
                listener, properties.getEvictions().getInterval());
    }

}
