package io.varpulis.cluster.coordinator;

import io.varpulis.pipeline.PipelineUnit;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The read-only views a coordinator serves (SPEC section 5's cluster API and health): a group's confirmed placement
 * and its pipelines' placement states, the leader, and the {@code cluster} health details. Computed from the
 * bookkeeping and the election; nothing here changes either.
 */
final class CoordinatorViews {

    private CoordinatorViews() {
    }

    /**
     * @param state the bookkeeping
     * @param group a group name
     * @return where its pipelines run, {@code pipeline -> worker id} ({@code pipeline/partition -> worker id} for
     * each partition of a partitioned pipeline, SPEC section 11): confirmed placements only
     */
    static Map<String, String> placementOf(ClusterState state, String group) {
        Map<String, String> placed = new LinkedHashMap<>();
        state.group(group).ifPresent(spec -> PipelineUnit.of(spec).forEach(unit -> state.placement(unit.key())
                .filter(Placement::isRunning).ifPresent(at -> placed.put(unit.name(), at.worker()))));
        return placed;
    }

    /**
     * @param state    the bookkeeping
     * @param group    a group name
     * @param adopting until when the coordinator adopts from heartbeats, if it does now
     * @param leaderId the current leader's id, {@code null} during an election
     * @return every pipeline of the group (every partition, as {@code pipeline/partition}) with its placement state,
     * in declaration order
     */
    static Map<String, PipelineView> pipelinesOf(ClusterState state, String group, Optional<Instant> adopting,
                                                 Supplier<String> leaderId) {
        Map<String, PipelineView> views = new LinkedHashMap<>();
        state.group(group).ifPresent(spec -> PipelineUnit.of(spec).forEach(unit -> {
            Placement at = state.placement(unit.key()).orElse(null);
            ClusterState.FailedDeploy failed = state.failure(unit.key()).orElse(null);
            views.put(unit.name(), PipelineView.of(at, failed, adopting.orElse(null), leaderId.get(),
                    state.stateReason(unit.key()).orElse(null)));
        }));
        return views;
    }

    /**
     * @param election      the election
     * @param cluster       the cluster name
     * @param coordinatorId the coordinator asked
     * @return the leader as {@code GET /api/v1/cluster/leader} shows it
     */
    static LeaderView leader(LeaderElection election, String cluster, String coordinatorId) {
        Optional<LeaderElection.Leader> current = election.current();
        return new LeaderView(current.map(LeaderElection.Leader::leader).orElse(null),
                current.map(LeaderElection.Leader::epoch).orElse(0L), cluster,
                current.map(LeaderElection.Leader::expiresAt).orElse(null), coordinatorId, election.isLeader(),
                election.ttl().toMillis());
    }

    /**
     * @param leader        the leader view ({@link #leader})
     * @param cluster       the cluster name
     * @param coordinatorId the coordinator asked
     * @param adopting      until when it adopts from heartbeats, if it does now
     * @param reachable     whether it reaches NATS and its heartbeat consumer
     * @param state         the bookkeeping (the workers by status)
     * @param otherClusters the other clusters of this NATS account, by name, with what showed them
     * @return the {@code cluster} health details: {@code {"cluster", "coordinator", "leader", "epoch",
     * "this_node_leads", "placement"?, "nats_reachable", "workers": {status: count}, "other_clusters"?}}
     */
    static Map<String, Object> healthDetails(LeaderView leader, String cluster, String coordinatorId,
                                             Optional<Instant> adopting, boolean reachable, ClusterState state,
                                             Supplier<Map<String, String>> otherClusters) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("cluster", cluster);
        details.put("coordinator", coordinatorId);
        details.put("leader", leader.leader() == null ? "none (election under way)" : leader.leader());
        details.put("epoch", leader.epoch());
        details.put("this_node_leads", leader.thisNodeLeads());
        adopting.ifPresent(until -> details.put("placement", "adopting from heartbeats until " + until));
        details.put("nats_reachable", reachable);
        Map<String, Long> workers = state.workers().stream().collect(Collectors.groupingBy(WorkerRecord::status,
                TreeMap::new, Collectors.counting()));
        details.put("workers", workers);
        Map<String, String> others = otherClusters.get();
        if (!others.isEmpty()) {
            details.put("other_clusters", others);
        }
        return details;
    }
}
