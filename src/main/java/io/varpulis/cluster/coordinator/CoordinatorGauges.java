package io.varpulis.cluster.coordinator;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.varpulis.pipeline.PipelineUnit;

import java.util.List;

/**
 * A coordinator's cluster gauges, which the chart's alert rules and dashboard read (SPEC
 * section 15): {@code varpulis.cluster.leader{coordinator,cluster}} (1 while it leads),
 * {@code varpulis.cluster.leader.epoch} (its last leadership's epoch),
 * {@code varpulis.cluster.workers{status,cluster}} (workers it knows, by status) and
 * {@code varpulis.cluster.pipelines.unplaced{coordinator,cluster}} (pipelines and
 * partitions of the declared groups with no ready worker: unplaced, or placed on a worker
 * that is no longer ready). Only the leader places, so only the leader's unplaced count
 * means anything; the rules join it with {@code varpulis.cluster.leader}.
 */
public final class CoordinatorGauges {

    private final LeaderElection election;

    private final ClusterState state;

    /**
     * @param election this coordinator's id, cluster and leadership
     * @param state the bookkeeping the worker and placement gauges read
     */
    public CoordinatorGauges(LeaderElection election, ClusterState state) {
        this.election = election;
        this.state = state;
    }

    /**
     * Registers the gauges, tagged with this coordinator's id and cluster name.
     * @param registry the node's meter registry
     */
    public void bindTo(MeterRegistry registry) {
        String coordinatorId = election.coordinatorId();
        String clusterName = election.cluster();
        Gauge.builder("varpulis.cluster.leader", election, e -> e.isLeader() ? 1 : 0)
            .description("1 while this coordinator leads its cluster, else 0")
            .tag("coordinator", coordinatorId)
            .tag("cluster", clusterName)
            .register(registry);
        Gauge.builder("varpulis.cluster.leader.epoch", election, LeaderElection::epoch)
            .description("the epoch of this coordinator's last leadership")
            .tag("coordinator", coordinatorId)
            .tag("cluster", clusterName)
            .register(registry);
        for (String status : List.of(WorkerRecord.READY, WorkerRecord.UNHEALTHY)) {
            Gauge
                .builder("varpulis.cluster.workers", state,
                        s -> s.workers().stream().filter(w -> w.status().equals(status)).count())
                .description(
                        "workers this coordinator knows, by status (unhealthy ones until " + "dead-worker-retention)")
                .tag("status", status)
                .tag("cluster", clusterName)
                .register(registry);
        }
        Gauge.builder("varpulis.cluster.pipelines.unplaced", state, CoordinatorGauges::unplaced)
            .description("pipelines and partitions of the declared groups without a ready worker")
            .tag("coordinator", coordinatorId)
            .tag("cluster", clusterName)
            .register(registry);
    }

    private static long unplaced(ClusterState state) {
        return state.groups()
            .stream()
            .flatMap(group -> PipelineUnit.of(group).stream())
            .filter(unit -> state.placement(unit.key())
                .flatMap(placed -> state.worker(placed.worker()))
                .map(worker -> !worker.isReady())
                .orElse(true))
            .count();
    }

}
