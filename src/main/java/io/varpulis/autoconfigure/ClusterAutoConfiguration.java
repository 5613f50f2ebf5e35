package io.varpulis.autoconfigure;

import io.nats.client.Connection;
import io.varpulis.cluster.node.ClusterHealthIndicator;
import io.varpulis.cluster.node.ClusterProperties;
import io.varpulis.cluster.coordinator.ClusterState;
import io.varpulis.cluster.coordinator.CoordinatorNode;
import io.varpulis.cluster.coordinator.GroupStore;
import io.varpulis.cluster.coordinator.HeartbeatListener;
import io.varpulis.cluster.coordinator.LeaderElection;
import io.varpulis.cluster.node.NodeIdentity;
import io.varpulis.cluster.worker.RefusalExit;
import io.varpulis.cluster.worker.WorkerIdLease;
import io.varpulis.cluster.worker.WorkerNode;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.delivery.EventInjector;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.BuiltInProcessorTypes;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.ProcessorRegistry;
import io.varpulis.pipeline.ProcessorType;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.RequestReply;
import io.varpulis.web.ClusterApiController;
import io.varpulis.web.NodeSecurityProperties;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Auto-configuration of a cluster node when {@code varpulis.cluster.enabled=true} (the jar's own
 * {@code application.yml} sets it; a service that only wants the substrate leaves it off): the worker part
 * ({@link PipelineHost}, {@link WorkerNode}) and the coordinator part ({@link ClusterState},
 * {@link HeartbeatListener}, {@link CoordinatorNode}) by {@code varpulis.cluster.role}.
 */
@ConditionalOnClass(ClusterProperties.class) // the node's classes: absent from the library jar (issue 22)
@AutoConfiguration(after = TransportAutoConfiguration.class)
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
@ConditionalOnBean(ClusterTransport.class)
@EnableConfigurationProperties({ClusterProperties.class, NodeSecurityProperties.class})
public class ClusterAutoConfiguration {

    /**
     * @param types every {@link ProcessorType} bean a service declares
     * @param beans the bean factory, for the {@code bean} type
     * @return the registry of the built-in types and every {@link ProcessorType} bean
     */
    @Bean
    @ConditionalOnMissingBean
    public ProcessorRegistry processorRegistry(ObjectProvider<ProcessorType> types, BeanFactory beans) {
        List<ProcessorType> all = new ArrayList<>(List.of(BuiltInProcessorTypes.passthrough(),
                BuiltInProcessorTypes.filter(), BuiltInProcessorTypes.bean(beans)));
        types.orderedStream().forEach(all::add);
        return new ProcessorRegistry(all);
    }

    /**
     * @param coordinator this node's coordinator, when it runs one
     * @param worker      this node's worker, when it runs one
     * @return the {@code cluster} health contributor (leader, placement, workers; a worker's refusal)
     */
    @Bean
    @ConditionalOnMissingBean(name = "clusterHealthIndicator")
    @ConditionalOnClass(ConditionalOnEnabledHealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("cluster")
    public ClusterHealthIndicator clusterHealthIndicator(ObjectProvider<CoordinatorNode> coordinator,
                                                         ObjectProvider<WorkerNode> worker) {
        return new ClusterHealthIndicator(coordinator.getIfAvailable(), worker.getIfAvailable());
    }

    /**
     * @param transport publishes
     * @param codec     encodes events
     * @param metrics   counts published events
     * @return the one way an outside event enters a group: the operator API's inject, the worker's inject command
     */
    @Bean
    @ConditionalOnMissingBean
    public EventInjector eventInjector(ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics) {
        return new EventInjector(transport, codec, metrics);
    }

    /** The worker part. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClusterRole(ConditionalOnClusterRole.Part.WORKER)
    static class WorkerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        KeyValueStateFactory keyValueStateFactory(Substrate substrate, Connection connection,
                                                  ClusterTransport transport, ClusterProperties cluster,
                                                  NatsProperties nats, SubstrateMetrics metrics) {
            return substrate == Substrate.JETSTREAM
                    ? KeyValueStateFactory.jetStream(connection, transport, new JetStreamKeyValueState.Settings(
                    cluster.getStateTtl(), nats.getJetstream().getReplicas(),
                    nats.getJetstream().getPublishTimeout(), cluster.getStateCacheKeys()), metrics)
                    : KeyValueStateFactory.inMemory();
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        PipelineHost pipelineHost(DeliveryContainerFactory containers, ProcessorRegistry processors,
                                  KeyValueStateFactory states, EventCodec codec, SubstrateMetrics metrics,
                                  NatsProperties nats) {
            return new PipelineHost(containers, processors, states, codec, metrics,
                    nats.getJetstream().getConsumer());
        }

        @Bean
        @ConditionalOnMissingBean
        RefusalExit refusalExit() {
            return new RefusalExit();
        }

        @Bean
        @ConditionalOnMissingBean
        WorkerNode workerNode(ClusterProperties cluster, Substrate substrate, Connection connection,
                              ClusterTransport transport, PipelineHost host, EventCodec codec,
                              EventInjector injector, NatsProperties nats, RefusalExit exit,
                              Environment environment, RequestReply requests) {
            NodeIdentity.checkHeartbeats(cluster);
            NodeIdentity.checkLeases(cluster);
            String clusterName = NodeIdentity.clusterName(cluster);
            String workerId = NodeIdentity.workerId(cluster);
            String address = NodeIdentity.address(cluster, environment.getProperty("server.port", "8080"));
            WorkerIdLease idLease = substrate == Substrate.JETSTREAM
                    ? WorkerIdLease.open(connection, workerId, clusterName, cluster.getWorkerLeaseTtl(),
                    nats.getJetstream().getReplicas(), cluster.getCommandTimeout(), codec.mapper())
                    : null;
            return new WorkerNode(workerId, cluster, connection, requests, transport, host, codec.mapper(), injector,
                    address, idLease, exit);
        }
    }

    /** The coordinator part. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClusterRole(ConditionalOnClusterRole.Part.COORDINATOR)
    static class CoordinatorConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ClusterState clusterState() {
            return new ClusterState(Clock.systemUTC());
        }

        @Bean
        @ConditionalOnMissingBean
        GroupStore groupStore(Substrate substrate, Connection connection, EventCodec codec, NatsProperties nats,
                              ClusterProperties cluster) {
            return substrate == Substrate.JETSTREAM
                    ? GroupStore.jetStream(connection, codec.mapper(), nats.getJetstream().getReplicas(),
                    NodeIdentity.clusterName(cluster))
                    : GroupStore.inMemory();
        }

        @Bean
        @ConditionalOnMissingBean
        LeaderElection leaderElection(ClusterProperties cluster, Substrate substrate, Connection connection,
                                      NatsProperties nats, EventCodec codec) {
            NodeIdentity.checkLeases(cluster);
            String coordinatorId = NodeIdentity.coordinatorId(cluster, substrate);
            String clusterName = NodeIdentity.clusterName(cluster);
            return substrate == Substrate.JETSTREAM
                    ? LeaderElection.lease(connection, coordinatorId, clusterName, cluster.getLeaderLeaseTtl(),
                    nats.getJetstream().getReplicas(), cluster.getCommandTimeout(), codec.mapper())
                    : LeaderElection.solo(coordinatorId, clusterName);
        }

        @Bean
        @ConditionalOnMissingBean
        CoordinatorNode coordinatorNode(ClusterProperties cluster, Substrate substrate, Connection connection,
                                        DeliveryContainerFactory containers, NatsProperties nats, ClusterState state,
                                        ProcessorRegistry processors, EventCodec codec, SubstrateMetrics metrics,
                                        ObjectProvider<JetStreamAdmin> admin, GroupStore groups,
                                        LeaderElection election, RequestReply requests) {
            NodeIdentity.checkHeartbeats(cluster);
            String coordinatorId = NodeIdentity.coordinatorId(cluster, substrate);
            return new CoordinatorNode(coordinatorId, cluster, connection, requests, containers,
                    nats.getJetstream().getConsumer(), state, processors, codec.mapper(), admin.getIfAvailable(),
                    metrics, groups, election);
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
        ClusterApiController clusterApiController(CoordinatorNode coordinator, EventInjector injector,
                                                  ClusterTransport transport, NodeSecurityProperties limits) {
            return new ClusterApiController(coordinator, injector, transport, limits);
        }
    }
}
