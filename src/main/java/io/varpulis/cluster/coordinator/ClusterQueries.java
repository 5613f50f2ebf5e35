package io.varpulis.cluster.coordinator;

import io.varpulis.cluster.node.NodeHealth;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a coordinator knows of its cluster, read-only: the query facade the operator API
 * ({@code /api/v1/cluster}), the {@code cluster} health details and the tests read (SPEC
 * sections 5, 9 and 17). Computed from the bookkeeping, the election and the placement
 * loop when asked; nothing here changes them or sends anything. Every coordinator
 * answers, the leader and its warm followers alike.
 */
public class ClusterQueries implements NodeHealth {

    private final ClusterState state;

    private final LeaderElection election;

    private final PlacementLoop placement;

    private final PlacementGate gate;

    private final UnregisteredWorkers unregistered;

    private final ReachabilityProbe probe;

    private final OtherClusters otherClusters;

    /**
     * @param state the bookkeeping: workers, groups, placements
     * @param election the leader, this coordinator's id and cluster
     * @param placement the adoption window
     * @param gate what each worker can run, and its deploy backoff
     * @param unregistered the workers heartbeating without being registered here
     * @param probe whether this coordinator hears the workers
     * @param otherClusters the other clusters of the NATS account
     */
    public ClusterQueries(ClusterState state, LeaderElection election, PlacementLoop placement, PlacementGate gate,
            UnregisteredWorkers unregistered, ReachabilityProbe probe, OtherClusters otherClusters) {
        this.state = state;
        this.election = election;
        this.placement = placement;
        this.gate = gate;
        this.unregistered = unregistered;
        this.probe = probe;
        this.otherClusters = otherClusters;
    }

    /**
     * @return this coordinator's id
     */
    public String coordinatorId() {
        return election.coordinatorId();
    }

    /**
     * @return whether this coordinator leads its cluster now
     */
    public boolean isLeader() {
        return election.isLeader();
    }

    /**
     * @return the leader as {@code GET /api/v1/cluster/leader} shows it, the same on
     * every coordinator
     */
    public LeaderView leader() {
        Optional<LeaderElection.Leader> current = election.current();
        return new LeaderView(current.map(LeaderElection.Leader::leader).orElse(null),
                current.map(LeaderElection.Leader::epoch).orElse(0L), election.cluster(),
                current.map(LeaderElection.Leader::expiresAt).orElse(null), election.coordinatorId(),
                election.isLeader(), election.ttl().toMillis());
    }

    /**
     * @return every registered worker (ready or unhealthy, until dead-worker-retention),
     * by id
     */
    public List<WorkerRecord> workers() {
        return state.workers();
    }

    /**
     * @param workerId a worker id
     * @return its record, empty when this coordinator does not know it
     */
    public Optional<WorkerRecord> worker(String workerId) {
        return state.worker(workerId);
    }

    /**
     * @param workerId a worker id
     * @return the pipeline units placed on it (deploying or running), as
     * {@code group/pipeline[/partition]}
     */
    public List<String> placedOn(String workerId) {
        return state.pipelinesOf(workerId);
    }

    /**
     * @return the workers that heartbeat without being registered with this coordinator,
     * with the reason: never one the cluster state knows (a heartbeat racing its
     * registration must not list it twice)
     */
    public List<UnregisteredWorkers.Entry> unregisteredWorkers() {
        return unregistered.list().stream().filter(e -> state.worker(e.workerId()).isEmpty()).toList();
    }

    /**
     * @return the groups, in declaration order
     */
    public List<PipelineGroupSpec> groups() {
        return state.groups();
    }

    /**
     * @param name a group name
     * @return the group, empty when this cluster has none of that name
     */
    public Optional<PipelineGroupSpec> group(String name) {
        return state.group(name);
    }

    /**
     * @param unitKey a pipeline unit, {@code group/pipeline[/partition]}
     * @return where it is placed (deploying or running), with its placement epoch
     */
    public Optional<Placement> placement(String unitKey) {
        return state.placement(unitKey);
    }

    /**
     * @return where every pipeline unit is placed (deploying or running),
     * {@code group/pipeline[/partition] ->
     * worker id}
     */
    public Map<String, String> placements() {
        return state.placement();
    }

    /**
     * @param group a group name
     * @return where its pipelines run, {@code pipeline -> worker id}
     * ({@code pipeline/partition -> worker id} for each partition of a partitioned
     * pipeline, SPEC section 11): confirmed placements only
     */
    public Map<String, String> placementOf(String group) {
        Map<String, String> placed = new LinkedHashMap<>();
        state.group(group)
            .ifPresent(spec -> PipelineUnit.of(spec)
                .forEach(unit -> state.placement(unit.key())
                    .filter(Placement::isRunning)
                    .ifPresent(at -> placed.put(unit.name(), at.worker()))));
        return placed;
    }

    /**
     * @param group a group name
     * @return every pipeline of the group (every partition, as
     * {@code pipeline/partition}) with its placement state, in declaration order
     */
    public Map<String, PipelineView> pipelinesOf(String group) {
        Optional<Instant> adopting = adoptingUntil();
        String leaderId = election.current().map(LeaderElection.Leader::leader).orElse(null);
        Map<String, PipelineView> views = new LinkedHashMap<>();
        state.group(group).ifPresent(spec -> PipelineUnit.of(spec).forEach(unit -> {
            Placement at = state.placement(unit.key()).orElse(null);
            ClusterState.FailedDeploy failed = state.failure(unit.key()).orElse(null);
            views.put(unit.name(), PipelineView.of(at, failed, adopting.orElse(null), leaderId,
                    state.stateReason(unit.key()).orElse(null)));
        }));
        return views;
    }

    /**
     * @return until when this coordinator adopts what the workers report instead of
     * placing orphaned pipelines (after its start, or its election), empty once that is
     * over
     */
    public Optional<Instant> adoptingUntil() {
        return placement.adoptingUntil();
    }

    /**
     * @return every group and its placement, for the topology API ({@link GroupTopology})
     */
    public List<Map<String, Object>> topology() {
        return GroupTopology.of(state, this::placementOf);
    }

    /**
     * @return by worker, what it can run and any deploy backoff (SPEC section 17):
     * {@code {"capabilities": {...} or null, "backoff": {"failures", "until",
     * "last_error"}}}, the backoff only while it lasts
     */
    public Map<String, Map<String, Object>> placementGate() {
        return gate.view();
    }

    /**
     * @return whether this coordinator reaches NATS and its heartbeat consumer (as of its
     * last check)
     */
    public boolean isReachable() {
        return probe.isReachable();
    }

    /**
     * @return the other clusters found in this NATS account (leader leases, stored
     * groups, registrations and heartbeats), by name, with what showed them; {@code ""}
     * names groups stored without a cluster (older versions)
     */
    public Map<String, String> otherClusters() {
        return otherClusters.found();
    }

    /**
     * @return the {@code cluster} health details of this coordinator:
     * {@code {"cluster", "coordinator", "leader", "epoch", "this_node_leads",
     * "placement"?, "nats_reachable", "workers": {status: count}, "other_clusters"?}}
     */
    @Override
    public Map<String, Object> healthDetails() {
        LeaderView leader = leader();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("cluster", election.cluster());
        details.put("coordinator", election.coordinatorId());
        details.put("leader", leader.leader() == null ? "none (election under way)" : leader.leader());
        details.put("epoch", leader.epoch());
        details.put("this_node_leads", leader.thisNodeLeads());
        adoptingUntil().ifPresent(until -> details.put("placement", "adopting from heartbeats until " + until));
        details.put("nats_reachable", probe.isReachable());
        Map<String, Long> workers = state.workers()
            .stream()
            .collect(Collectors.groupingBy(WorkerRecord::status, TreeMap::new, Collectors.counting()));
        details.put("workers", workers);
        Map<String, String> others = otherClusters.found();
        if (!others.isEmpty()) {
            details.put("other_clusters", others);
        }
        return details;
    }

}
