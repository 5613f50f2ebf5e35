package io.varpulis.autoconfigure.node;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.varpulis.autoconfigure.JetStreamConsumerProperties;
import io.varpulis.autoconfigure.JetStreamPublishProperties;
import io.varpulis.autoconfigure.JetStreamStreamsProperties;
import io.varpulis.autoconfigure.TransportAutoConfiguration;
import io.varpulis.cluster.coordinator.ClusterQueries;
import io.varpulis.cluster.coordinator.ClusterState;
import io.varpulis.cluster.coordinator.CoordinatorCommands;
import io.varpulis.cluster.coordinator.CoordinatorGauges;
import io.varpulis.cluster.coordinator.CoordinatorNode;
import io.varpulis.cluster.coordinator.CoordinatorSettings;
import io.varpulis.cluster.coordinator.GroupDeclarations;
import io.varpulis.cluster.coordinator.GroupResources;
import io.varpulis.cluster.coordinator.GroupStore;
import io.varpulis.cluster.coordinator.HeartbeatListener;
import io.varpulis.cluster.coordinator.HeartbeatReconciliation;
import io.varpulis.cluster.coordinator.LateWorkers;
import io.varpulis.cluster.coordinator.LeaderElection;
import io.varpulis.cluster.coordinator.LostGroupsRestore;
import io.varpulis.cluster.coordinator.OtherClusters;
import io.varpulis.cluster.coordinator.PlacementGate;
import io.varpulis.cluster.coordinator.PlacementLoop;
import io.varpulis.cluster.coordinator.ReachabilityProbe;
import io.varpulis.cluster.coordinator.RegistrationResponder;
import io.varpulis.cluster.coordinator.ServerClock;
import io.varpulis.cluster.coordinator.ServerProgress;
import io.varpulis.cluster.coordinator.UnregisteredWorkers;
import io.varpulis.cluster.coordinator.WorkerAdmission;
import io.varpulis.cluster.coordinator.WorkerHealthCheck;
import io.varpulis.cluster.node.ClusterHealthIndicator;
import io.varpulis.cluster.node.CoreRequests;
import io.varpulis.cluster.node.KeyValueLease;
import io.varpulis.cluster.node.NodeIdentity;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.cluster.worker.CommandResponder;
import io.varpulis.cluster.worker.HeartbeatPublisher;
import io.varpulis.cluster.worker.RefusalExit;
import io.varpulis.cluster.worker.WorkerIdLease;
import io.varpulis.cluster.worker.WorkerIdentity;
import io.varpulis.cluster.worker.WorkerNode;
import io.varpulis.cluster.worker.WorkerRegistration;
import io.varpulis.cluster.worker.WorkerSettings;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.delivery.EventInjector;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.BuiltInProcessorTypes;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.ProcessorRegistry;
import io.varpulis.pipeline.ProcessorType;
import io.varpulis.pipeline.StateRollback;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.RequestReply;
import io.varpulis.web.ClusterApiController;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
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
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Auto-configuration of a cluster node when {@code varpulis.cluster.enabled=true} (the
 * jar's own {@code application.yml} sets it; a service that only wants the substrate
 * leaves it off): the worker part ({@link PipelineHost}, {@link WorkerNode}) and the
 * coordinator part ({@link CoordinatorNode} and its parts) by
 * {@code varpulis.cluster.role}.
 * <p>
 * Longer than most: it declares every bean of both roles (each part, its scheduler, its
 * settings), a few lines each, so that a node's wiring reads in one place; it holds no
 * logic of its own.
 */
@AutoConfiguration(after = TransportAutoConfiguration.class)
@ConditionalOnProperty(prefix = "varpulis.cluster", name = "enabled", havingValue = "true")
@ConditionalOnBean(ClusterTransport.class)
@EnableConfigurationProperties({ ClusterProperties.class, NodeSecurityProperties.class })
@ImportRuntimeHints(NodeRuntimeHints.class)
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
     * @param environment the node's environment
     * @return the node's defaults (ADR-007's id variables, its connection name and inbox
     * prefix), set before its properties are bound; static, so it is ready before them
     */
    @Bean
    public static NodePropertyDefaults nodePropertyDefaults(Environment environment) {
        return new NodePropertyDefaults(environment);
    }

    /**
     * @return the routed event codec (SPEC section 6)
     */
    @Bean
    @ConditionalOnMissingBean
    public EventCodec eventCodec() {
        return new EventCodec();
    }

    /**
     * @param coordinator this node's coordinator, when it runs one
     * @param worker this node's worker, when it runs one
     * @return the {@code cluster} health contributor (leader, placement, workers; a
     * worker's refusal)
     */
    @Bean
    @ConditionalOnMissingBean(name = "clusterHealthIndicator")
    @ConditionalOnClass(ConditionalOnEnabledHealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("cluster")
    public ClusterHealthIndicator clusterHealthIndicator(ObjectProvider<ClusterQueries> coordinator,
            ObjectProvider<WorkerNode> worker) {
        return new ClusterHealthIndicator(coordinator.getIfAvailable(), worker.getIfAvailable());
    }

    /**
     * @param transport publishes
     * @param codec encodes events
     * @param metrics counts published events
     * @return the one way an outside event enters a group: the operator API's inject, the
     * worker's inject command
     */
    @Bean
    @ConditionalOnMissingBean
    public EventInjector eventInjector(ClusterTransport transport, EventCodec codec, SubstrateMetrics metrics) {
        return new EventInjector(transport, codec, metrics);
    }

    /**
     * @param connection the node's connection
     * @param requests core request/reply, observed when observation is on
     * @param codec its mapper writes and reads the JSON bodies
     * @return how registrations and commands travel between coordinators and workers
     */
    @Bean
    @ConditionalOnMissingBean
    public CoreRequests coreRequests(Connection connection, RequestReply requests, EventCodec codec) {
        return new CoreRequests(connection, requests, codec.mapper());
    }

    /** The worker part. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClusterRole(ConditionalOnClusterRole.Part.WORKER)
    static class WorkerConfiguration {

        /**
         * A thread per pipeline state at work (sending, settling, looking up its leader),
         * one task at a time per state: a state waiting for its leader or for the PubAck
         * window holds up no other (SPEC section 20).
         */
        @Bean(name = "varpulisStatePool", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "varpulisStatePool")
        ThreadPoolTaskExecutor varpulisStatePool() {
            return DaemonThreads.executor("varpulis-state", Integer.MAX_VALUE);
        }

        /**
         * Schedules the states' look-ups of their bucket's leader; never runs them.
         */
        @Bean(name = "varpulisStateTimer", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "varpulisStateTimer")
        ThreadPoolTaskScheduler varpulisStateTimer() {
            return DaemonThreads.scheduler("varpulis-state-timer");
        }

        /**
         * A thread per proof: each waits for a server read, and all of a heartbeat's
         * proofs run at once.
         */
        @Bean(name = "varpulisOwnershipProofExecutor", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "varpulisOwnershipProofExecutor")
        ThreadPoolTaskExecutor varpulisOwnershipProofExecutor() {
            return DaemonThreads.executor("varpulis-ownership-proof", Integer.MAX_VALUE);
        }

        /**
         * One thread: fenced pipelines are stopped off the consumer threads that found
         * them fenced.
         */
        @Bean(name = "varpulisFencedStopExecutor", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "varpulisFencedStopExecutor")
        ThreadPoolTaskExecutor varpulisFencedStopExecutor() {
            return DaemonThreads.executor("varpulis-fenced-stop", 1);
        }

        @Bean
        @ConditionalOnMissingBean
        KeyValueStateFactory keyValueStateFactory(Substrate substrate, Connection connection,
                ClusterTransport transport, ClusterProperties cluster, JetStreamStreamsProperties streams,
                JetStreamPublishProperties publishing, SubstrateMetrics metrics,
                @Qualifier("varpulisStatePool") Executor pool, @Qualifier("varpulisStateTimer") TaskScheduler timer,
                ObjectProvider<JetStreamAdmin> admin) {
            return substrate == Substrate.JETSTREAM ? KeyValueStateFactory.jetStream(connection, transport,
                    new JetStreamKeyValueState.Settings(cluster.getStateTtl(), streams.getReplicas(),
                            publishing.getPublishTimeout(), cluster.getStateCacheKeys()),
                    metrics, new JetStreamKeyValueState.Threads(pool, timer),
                    new StateRollback(admin.getObject().losses())) : KeyValueStateFactory.inMemory();
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        PipelineHost pipelineHost(DeliveryContainerFactory containers, ProcessorRegistry processors,
                KeyValueStateFactory states, EventCodec codec, SubstrateMetrics metrics,
                JetStreamConsumerProperties consumer,
                @Qualifier("varpulisOwnershipProofExecutor") Executor ownershipProofs,
                @Qualifier("varpulisFencedStopExecutor") Executor fencedStops) {
            return new PipelineHost(containers, processors, states, codec, metrics, consumer.toSettings(),
                    new PipelineHost.Threads(ownershipProofs, fencedStops));
        }

        @Bean
        @ConditionalOnMissingBean
        RefusalExit refusalExit() {
            return new RefusalExit();
        }

        /**
         * One thread that nothing else uses: a heartbeat never waits behind a state write
         * or the id lease.
         */
        @Bean(name = "varpulisHeartbeatScheduler", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "varpulisHeartbeatScheduler")
        ThreadPoolTaskScheduler varpulisHeartbeatScheduler() {
            return DaemonThreads.scheduler("varpulis-heartbeat");
        }

        /**
         * The id lease's renewals, on a thread of their own: a slow bucket never delays a
         * heartbeat.
         */
        @Bean(name = "varpulisIdLeaseScheduler", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "varpulisIdLeaseScheduler")
        ThreadPoolTaskScheduler varpulisIdLeaseScheduler() {
            return DaemonThreads.scheduler("varpulis-id-lease");
        }

        /**
         * The worker's cluster, limits and timing, checked: a bad value fails startup
         * naming the property.
         */
        @Bean
        @ConditionalOnMissingBean
        WorkerSettings workerSettings(ClusterProperties cluster) {
            return NodeSettings.worker(cluster);
        }

        @Bean
        @ConditionalOnMissingBean
        WorkerIdentity workerIdentity(ClusterProperties cluster, ClusterTransport transport, Environment environment) {
            return new WorkerIdentity(NodeIdentity.workerId(cluster.getWorkerId()),
                    NodeIdentity.address(cluster.getAddress(), environment.getProperty("server.port", "8080")),
                    transport.substrate().id());
        }

        @Bean
        @ConditionalOnMissingBean
        HeartbeatPublisher heartbeatPublisher(WorkerIdentity identity, WorkerSettings settings,
                ClusterTransport transport, PipelineHost host, EventCodec codec,
                @Qualifier("varpulisHeartbeatScheduler") TaskScheduler scheduler) {
            return new HeartbeatPublisher(identity.workerId(), settings, transport, host, codec.mapper(), scheduler);
        }

        @Bean
        @ConditionalOnMissingBean
        WorkerRegistration workerRegistration(WorkerIdentity identity, WorkerSettings settings,
                ClusterProperties cluster, CoreRequests requests, PipelineHost host, HeartbeatPublisher heartbeats,
                RefusalExit exit) {
            return new WorkerRegistration(identity, settings, NodeSettings.registration(cluster), requests, host,
                    heartbeats, exit);
        }

        @Bean
        @ConditionalOnMissingBean
        CommandResponder commandResponder(WorkerIdentity identity, WorkerSettings settings, CoreRequests requests,
                PipelineHost host, EventInjector injector, WorkerRegistration registration) {
            return new CommandResponder(identity.workerId(), settings, requests, host, injector, registration);
        }

        /**
         * On JetStream, the worker id is held by one live process
         * ({@link WorkerIdLease}); on core it is not.
         */
        @Bean
        @ConditionalOnMissingBean
        WorkerNode workerNode(WorkerIdentity identity, WorkerSettings settings, Substrate substrate,
                Connection connection, PipelineHost host, EventCodec codec, JetStreamStreamsProperties streams,
                @Qualifier("varpulisIdLeaseScheduler") TaskScheduler leaseScheduler, CommandResponder commands,
                HeartbeatPublisher heartbeats, WorkerRegistration registration, ObjectProvider<JetStreamAdmin> admin) {
            WorkerIdLease idLease = substrate == Substrate.JETSTREAM ? WorkerIdLease.open(connection,
                    identity.workerId(), settings.clusterName(), new KeyValueLease.Settings(settings.workerLeaseTtl(),
                            streams.getReplicas(), settings.commandTimeout()),
                    codec.mapper()) : null;
            if (idLease != null) {
                keepBucket(admin, ControlPlaneBuckets.WORKER_IDS, false);
            }
            return new WorkerNode(identity, settings, connection, host, idLease, leaseScheduler,
                    new WorkerNode.Parts(commands, heartbeats, registration));
        }

    }

    /**
     * The coordinator part: its parts, each a bean, and the lifecycle that starts them
     * ({@link CoordinatorNode}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClusterRole(ConditionalOnClusterRole.Part.COORDINATOR)
    static class CoordinatorConfiguration {

        /** One thread: the coordinator's ticks and placement rounds never run at once. */
        @Bean(name = "varpulisCoordinatorScheduler", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "varpulisCoordinatorScheduler")
        ThreadPoolTaskScheduler varpulisCoordinatorScheduler() {
            return DaemonThreads.scheduler("varpulis-coordinator");
        }

        /**
         * The leader lease's rounds, on a thread of their own: a slow tick never delays a
         * renewal.
         */
        @Bean(name = "varpulisElectionScheduler", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "varpulisElectionScheduler")
        ThreadPoolTaskScheduler varpulisElectionScheduler() {
            return DaemonThreads.scheduler("varpulis-election");
        }

        /**
         * The group store's re-reads beside its watch, on a thread of their own
         * (JetStream).
         */
        @Bean(name = "varpulisGroupResyncScheduler", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "varpulisGroupResyncScheduler")
        ThreadPoolTaskScheduler varpulisGroupResyncScheduler() {
            return DaemonThreads.scheduler("varpulis-group-resync");
        }

        /**
         * The coordinator's cluster and timing, checked: a bad value fails startup naming
         * the property.
         */
        @Bean
        @ConditionalOnMissingBean
        CoordinatorSettings coordinatorSettings(ClusterProperties cluster) {
            return NodeSettings.coordinator(cluster);
        }

        @Bean
        @ConditionalOnMissingBean
        LeaderElection leaderElection(ClusterProperties cluster, CoordinatorSettings settings, Substrate substrate,
                Connection connection, JetStreamStreamsProperties streams, EventCodec codec,
                @Qualifier("varpulisElectionScheduler") TaskScheduler scheduler, ObjectProvider<JetStreamAdmin> admin) {
            NodeSettings.checkLeases(cluster);
            String coordinatorId = NodeIdentity.coordinatorId(cluster.getCoordinatorId(), substrate);
            String clusterName = settings.clusterName();
            if (substrate != Substrate.JETSTREAM) {
                return LeaderElection.solo(coordinatorId, clusterName);
            }
            LeaderElection election = LeaderElection.lease(connection, coordinatorId, clusterName,
                    new KeyValueLease.Settings(cluster.getLeaderLeaseTtl(), streams.getReplicas(),
                            cluster.getCommandTimeout()),
                    codec.mapper(), scheduler);
            keepBucket(admin, ControlPlaneBuckets.LEADER, true);
            return election;
        }

        @Bean
        @ConditionalOnMissingBean
        GroupStore groupStore(Substrate substrate, Connection connection, EventCodec codec,
                JetStreamStreamsProperties streams, CoordinatorSettings settings,
                @Qualifier("varpulisGroupResyncScheduler") TaskScheduler resyncs,
                ObjectProvider<JetStreamAdmin> admin) {
            if (substrate != Substrate.JETSTREAM) {
                return GroupStore.inMemory();
            }
            GroupStore store = GroupStore.jetStream(connection, codec.mapper(), streams.getReplicas(),
                    settings.clusterName(), resyncs);
            keepBucket(admin, ControlPlaneBuckets.GROUPS, false);
            return store;
        }

        @Bean
        @ConditionalOnMissingBean
        PlacementGate placementGate(CoordinatorSettings settings, SubstrateMetrics metrics) {
            return new PlacementGate(Clock.systemUTC(), settings.heartbeats().interval(), metrics.registry());
        }

        @Bean
        @ConditionalOnMissingBean
        ClusterState clusterState(PlacementGate gate) {
            return new ClusterState(Clock.systemUTC(), gate);
        }

        @Bean
        @ConditionalOnMissingBean
        UnregisteredWorkers unregisteredWorkers(CoordinatorSettings settings, ClusterProperties cluster) {
            return new UnregisteredWorkers(Clock.systemUTC(), settings.heartbeats().timeout(),
                    cluster.getApiKey() != null);
        }

        @Bean
        @ConditionalOnMissingBean
        ServerClock serverClock() {
            return new ServerClock(Clock.systemUTC());
        }

        @Bean
        @ConditionalOnMissingBean
        CoordinatorCommands coordinatorCommands(CoordinatorSettings settings, CoreRequests requests,
                LeaderElection election) {
            return new CoordinatorCommands(settings, requests, election);
        }

        @Bean
        @ConditionalOnMissingBean
        OtherClusters otherClusters(CoordinatorSettings settings, LeaderElection election, GroupStore groups) {
            return new OtherClusters(settings.clusterName(), election, groups);
        }

        /**
         * On JetStream (a {@link JetStreamAdmin}), the heartbeat stream and consumer are
         * asked too.
         */
        @Bean
        @ConditionalOnMissingBean
        ReachabilityProbe reachabilityProbe(CoordinatorSettings settings, Connection connection,
                ServerClock serverClock, ClusterState state, LeaderElection election,
                ObjectProvider<JetStreamAdmin> admin) {
            return new ReachabilityProbe(election.coordinatorId(), settings.heartbeats().timeout(), connection,
                    admin.getIfAvailable() == null ? null : ReachabilityProbe.management(connection), serverClock,
                    state::nanoTime);
        }

        /**
         * On JetStream, a silent worker the server shows progressing is late, not dead;
         * on core it is dead.
         */
        @Bean
        @ConditionalOnMissingBean
        LateWorkers lateWorkers(CoordinatorSettings settings, ClusterState state, Connection connection,
                SubstrateMetrics metrics, ObjectProvider<JetStreamAdmin> admin) {
            LateWorkers.Evidence evidence = admin.getIfAvailable() == null ? LateWorkers.Evidence.none()
                    : new ServerProgress(ReachabilityProbe.management(connection), state, state::nanoTime);
            return new LateWorkers(settings.heartbeats().timeout(), evidence, state::nanoTime, metrics.registry());
        }

        @Bean
        @ConditionalOnMissingBean
        PlacementLoop placementLoop(CoordinatorSettings settings, ClusterState state, PlacementGate gate,
                LeaderElection election, CoordinatorCommands commands,
                @Qualifier("varpulisCoordinatorScheduler") TaskScheduler scheduler) {
            return new PlacementLoop(settings, state, gate, election, commands, scheduler);
        }

        @Bean
        @ConditionalOnMissingBean
        WorkerAdmission workerAdmission(ClusterProperties cluster, ClusterTransport transport, PlacementGate gate,
                ClusterState state, UnregisteredWorkers unregistered, PlacementLoop placement,
                CoordinatorCommands commands) {
            return new WorkerAdmission(NodeSettings.admission(cluster, transport.substrate().id()), gate, state,
                    unregistered, placement, commands);
        }

        @Bean
        @ConditionalOnMissingBean
        RegistrationResponder registrationResponder(CoordinatorSettings settings, CoreRequests requests,
                OtherClusters otherClusters, WorkerAdmission admission) {
            return new RegistrationResponder(settings.clusterName(), requests, otherClusters, admission);
        }

        @Bean
        @ConditionalOnMissingBean
        HeartbeatReconciliation heartbeatReconciliation(CoordinatorSettings settings, ClusterState state,
                GroupStore groups, OtherClusters otherClusters, PlacementLoop placement, WorkerAdmission admission) {
            return new HeartbeatReconciliation(settings, state, groups, otherClusters, placement, admission);
        }

        @Bean
        @ConditionalOnMissingBean
        HeartbeatListener heartbeatListener(CoordinatorSettings settings, LeaderElection election,
                ServerClock serverClock, EventCodec codec, HeartbeatReconciliation reconciliation,
                SubstrateMetrics metrics) {
            return new HeartbeatListener(election.coordinatorId(), settings.heartbeats().timeout(), serverClock,
                    codec.mapper(), reconciliation, metrics);
        }

        @Bean
        @ConditionalOnMissingBean
        WorkerHealthCheck workerHealthCheck(CoordinatorSettings settings, ClusterState state, ReachabilityProbe probe,
                LateWorkers lateWorkers, PlacementGate gate, HeartbeatReconciliation reconciliation,
                LeaderElection election) {
            return new WorkerHealthCheck(settings, state, probe, lateWorkers, gate, reconciliation, election);
        }

        /**
         * On JetStream, a purged group's consumers, state and routed events are deleted
         * too.
         */
        @Bean
        @ConditionalOnMissingBean
        GroupDeclarations groupDeclarations(ClusterProperties cluster, ClusterState state, ProcessorRegistry processors,
                GroupStore groups, OtherClusters otherClusters, PlacementLoop placement, Connection connection,
                ObjectProvider<JetStreamAdmin> admin,
                @Qualifier("varpulisCoordinatorScheduler") TaskScheduler scheduler) {
            GroupDeclarations declarations = new GroupDeclarations(NodeSettings.groups(cluster), state, processors,
                    groups, otherClusters, placement, admin.getIfAvailable() == null ? GroupResources.Purger.NOTHING
                            : GroupResources.jetStream(connection));
            // Groups the servers lost are written back from memory (issue 43).
            admin.ifAvailable(a -> a.losses().addListener(new LostGroupsRestore(declarations, scheduler)));
            return declarations;
        }

        @Bean
        @ConditionalOnMissingBean
        ClusterQueries clusterQueries(ClusterState state, LeaderElection election, PlacementLoop placement,
                PlacementGate gate, UnregisteredWorkers unregistered, ReachabilityProbe probe,
                OtherClusters otherClusters) {
            return new ClusterQueries(state, election, placement, gate, unregistered, probe, otherClusters);
        }

        /**
         * The gauges the chart's alert rules read, registered with the node's meter
         * registry.
         */
        @Bean
        @ConditionalOnMissingBean
        CoordinatorGauges coordinatorGauges(LeaderElection election, ClusterState state, SubstrateMetrics metrics) {
            CoordinatorGauges gauges = new CoordinatorGauges(election, state);
            gauges.bindTo(metrics.registry());
            return gauges;
        }

        @Bean
        @ConditionalOnMissingBean
        CoordinatorNode coordinatorNode(CoordinatorSettings settings, Connection connection,
                @Qualifier("varpulisCoordinatorScheduler") TaskScheduler scheduler, DeliveryContainerFactory containers,
                JetStreamConsumerProperties consumer, ReachabilityProbe probe, GroupDeclarations groups,
                PlacementLoop placement, RegistrationResponder registrations, HeartbeatListener heartbeats,
                WorkerHealthCheck health, LeaderElection election) {
            return new CoordinatorNode(settings, connection, scheduler, containers, consumer.toSettings(),
                    new CoordinatorNode.Parts(probe, groups, placement, registrations, heartbeats, health, election));
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
        ClusterApiController clusterApiController(ClusterQueries cluster, GroupDeclarations groups,
                EventInjector injector, ClusterTransport transport, NodeSecurityProperties limits) {
            return new ClusterApiController(cluster, groups, injector, transport, limits.toApiLimits());
        }

    }

    /**
     * Keeps a control-plane bucket the node created, so that it is declared again should
     * the servers lose it (issue 43, {@link io.varpulis.jetstream.DeclarationKeeper});
     * the leader leases' revisions are the leaders' epochs, which must only grow.
     */
    static void keepBucket(ObjectProvider<JetStreamAdmin> admin, String bucket, boolean revisionsAreEpochs) {
        JetStreamAdmin kept = admin.getIfAvailable();
        if (kept == null) {
            return;
        }
        try {
            kept.keepBucket(bucket, revisionsAreEpochs);
        }
        catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException(
                    "cannot read key-value bucket " + bucket + " just opened: " + e.getMessage(), e);
        }
    }

}
