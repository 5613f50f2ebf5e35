package io.varpulis.cluster.coordinator;

import io.varpulis.cluster.protocol.Commands;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.pipeline.PipelineUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Applies each fresh heartbeat ({@link HeartbeatListener}) to the coordinator's view
 * (SPEC sections 5 and 9): another cluster's is reported and left; an unknown worker's is
 * recorded, its copies of pipelines placed elsewhere are stopped, and the worker is asked
 * to register again ({@link WorkerAdmission}); a known worker's reconciles what it runs
 * with the placement: a pipeline it runs unplaced is adopted, a superseded copy and a
 * unit the cluster no longer has are undeployed there, and on the leader a pipeline
 * placed on it that it does not report is deployed again.
 */
public class HeartbeatReconciliation implements HeartbeatListener.HeartbeatSink {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatReconciliation.class);

    private final CoordinatorSettings settings;

    private final ClusterState state;

    private final GroupStore groups;

    private final OtherClusters otherClusters;

    private final PlacementLoop placement;

    private final WorkerAdmission admission;

    private final Clock clock;

    /**
     * {@code key@worker} of pipelines a worker reports whose group (or unit) this cluster
     * does not have, since.
     */
    private final Map<String, Instant> unknownReported = new ConcurrentHashMap<>();

    /**
     * @param settings the cluster's name, heartbeat-interval and command-timeout
     * @param state the bookkeeping the heartbeats are applied to
     * @param groups the group store, asked before a unit it lacks is undeployed
     * @param otherClusters told of another cluster's heartbeats
     * @param placement undeploys and deploys what the reports show out of place
     * @param admission takes a heartbeat of a worker not registered here
     */
    public HeartbeatReconciliation(CoordinatorSettings settings, ClusterState state, GroupStore groups,
            OtherClusters otherClusters, PlacementLoop placement, WorkerAdmission admission) {
        this.settings = settings;
        this.state = state;
        this.groups = groups;
        this.otherClusters = otherClusters;
        this.placement = placement;
        this.admission = admission;
        this.clock = state.clock();
    }

    /**
     * Applies a fresh heartbeat of this cluster: an unknown worker is asked to register
     * again; a known one is reconciled with its placement (on the leader: missing
     * pipelines deployed, pipelines it no longer owns undeployed; on a follower: what it
     * runs is recorded).
     * @param workerId the worker
     * @param heartbeat its heartbeat
     * @param age how long ago it was stored, on the server's clock: the worker was alive
     * then
     * @return whether it was applied: {@code false} for another cluster's worker or one
     * not registered here
     */
    @Override
    public boolean apply(String workerId, WorkerHeartbeat heartbeat, Duration age) {
        String from = heartbeat.cluster() == null ? Commands.DEFAULT_CLUSTER : heartbeat.cluster();
        if (!from.equals(settings.clusterName())) {
            otherClusters.noticed(from, "heartbeats of worker " + workerId);
            return false;
        }
        if (state.heartbeat(workerId, heartbeat, age).isEmpty()) {
            admission.heartbeatUnregistered(workerId);
            // Its copies of pipelines placed elsewhere stop now, not once it registered
            // again (issue 25, item 6).
            heartbeat.pipelineMetrics()
                .stream()
                .filter(m -> m.group() != null && state.supersedes(m.unitKey(), workerId, m.epochOrZero()))
                .forEach(m -> placement.undeployStaleCopy(workerId, m.unitKey(), m.epochOrZero()));
            admission.askToRegister(workerId);
            return false;
        }
        Set<String> reported = ConcurrentHashMap.newKeySet();
        for (WorkerHeartbeat.PipelineMetric metric : heartbeat.pipelineMetrics()) {
            if (metric.group() == null) {
                continue;
            }
            String key = metric.unitKey();
            reported.add(key);
            long epoch = metric.epochOrZero();
            ClusterState.Report report = state.reportRunning(key, workerId, epoch);
            if (report != ClusterState.Report.UNKNOWN_GROUP) {
                unknownReported.remove(key + "@" + workerId);
            }
            switch (report) {
                case ADOPTED -> log.info("pipeline {} runs on worker {} (placement epoch {}): placement adopted", key,
                        workerId, epoch);
                case ELSEWHERE -> placement.undeployStaleCopy(workerId, key, epoch);
                case UNKNOWN_GROUP -> undeployUnknown(workerId, key, epoch);
                case OWNED -> {
                    // Nothing to do.
                }
            }
        }
        unknownReported.keySet()
            .removeIf(k -> k.endsWith("@" + workerId)
                    && !reported.contains(k.substring(0, k.length() - workerId.length() - 1)));
        if (placement.isLeading()) {
            for (String key : state.pipelinesOf(workerId)) {
                state.placement(key)
                    .filter(p -> p.isRunning() && !reported.contains(key))
                    .ifPresent(p -> placement.deploy(key, p));
            }
        }
        return true;
    }

    /**
     * @param workerId a worker the coordinator forgot: what it reported is forgotten too
     */
    public void forget(String workerId) {
        unknownReported.keySet().removeIf(k -> k.endsWith("@" + workerId));
    }

    /**
     * A registered worker of this cluster runs a pipeline whose group this cluster no
     * longer has, or a unit the group no longer declares (removed, or re-declared with
     * fewer partitions, while the worker was cut off and the undeploy never reached it):
     * the leader undeploys it there. Only when all of these hold, so that nothing that
     * should run is stopped:
     * <ul>
     * <li>the group store is durable (JetStream): on core a restarted coordinator has
     * forgotten the groups declared over the API, and what the workers still run is left
     * running as before;</li>
     * <li>this coordinator is past its adoption window (after its start or election) and
     * has known the unit as unknown for at least a heartbeat interval of its own clock,
     * so that a group declared a moment ago on another coordinator, which the watch shows
     * within milliseconds, is never taken for a removed one;</li>
     * <li>the store itself, asked directly, holds no entry for the group (an entry this
     * version cannot read is never taken for a removed group), and the name is not
     * another cluster's or a pre-cluster-name group's.</li>
     * </ul>
     * Without this the worker would run it, and consume its edges, for as long as it
     * lives.
     */
    private void undeployUnknown(String workerId, String key, long epoch) {
        if (!groups.isDurable()) {
            return;
        }
        Instant now = clock.instant();
        Instant since = unknownReported.computeIfAbsent(key + "@" + workerId, k -> now);
        if (!placement.isLeading() || placement.adoptingUntil().isPresent()
                || since.plus(settings.heartbeats().interval()).isAfter(now)) {
            return;
        }
        PipelineUnit unit = PipelineUnit.parse(key);
        if (groups.otherClusters().values().stream().anyMatch(names -> names.contains(unit.group()))) {
            return;
        }
        if (state.group(unit.group()).isEmpty()) {
            try {
                if (groups.holds(unit.group())) {
                    return;
                }
            }
            catch (GroupStoreUnavailableException e) {
                log.debug("group store not answered about {}: {}", unit.group(), e.toString());
                return;
            }
        }
        if (!placement.firstCommandIn(key + "@" + workerId + "@undeploy", settings.commandTimeout())) {
            return;
        }
        log.warn("worker {} runs {}, which cluster {} no longer has (removed while the worker was unreachable?); "
                + "undeploying it there", workerId, key, settings.clusterName());
        placement.undeployRemoved(workerId, unit, epoch);
    }

}
