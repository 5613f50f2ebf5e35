package io.varpulis.cluster.coordinator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's check of its workers, every second at most (SPEC sections 5 and 9):
 * while it hears the heartbeats ({@link ReachabilityProbe}), a ready worker silent for
 * longer than heartbeat-timeout is unhealthy unless the server shows it progressing
 * ({@link LateWorkers}); a worker unhealthy for longer than dead-worker-retention is
 * forgotten, with its placements, its deploy backoff and what it reported.
 */
public class WorkerHealthCheck {

    private static final Logger log = LoggerFactory.getLogger(WorkerHealthCheck.class);

    private final CoordinatorSettings settings;

    private final ClusterState state;

    private final ReachabilityProbe probe;

    private final LivenessVerdict verdict;

    private final PlacementGate gate;

    private final HeartbeatReconciliation reports;

    private final LeaderElection election;

    /**
     * @param settings heartbeat-timeout and dead-worker-retention
     * @param state the bookkeeping whose workers are checked
     * @param probe whether the heartbeats are heard, and since when
     * @param verdict decides whether a silent worker is alive ({@link LateWorkers})
     * @param gate forgets a forgotten worker's capabilities and backoff
     * @param reports forgets what a forgotten worker reported
     * @param election whether this coordinator leads (the log says what it moves)
     */
    public WorkerHealthCheck(CoordinatorSettings settings, ClusterState state, ReachabilityProbe probe,
            LivenessVerdict verdict, PlacementGate gate, HeartbeatReconciliation reports, LeaderElection election) {
        this.settings = settings;
        this.state = state;
        this.probe = probe;
        this.verdict = verdict;
        this.gate = gate;
        this.reports = reports;
        this.election = election;
    }

    /**
     * Probes NATS, marks the silent workers unhealthy (only while the heartbeats are
     * heard) and forgets the long dead ones.
     * @return whether a worker became unhealthy now: its pipelines are to be placed
     * elsewhere in this very tick
     */
    public boolean check() {
        probe.check();
        boolean expired = false;
        if (probe.isReachable()) {
            for (String workerId : state.expire(probe.livenessFrom(), verdict)) {
                expired = true;
                log.warn("worker {} missed its heartbeats for {} ms: unhealthy{}", workerId,
                        settings.heartbeats().timeout().toMillis(),
                        election.isLeader() ? "; moving its pipelines " + state.pipelinesOf(workerId) : "");
            }
        }
        for (String workerId : state.forgetDead(settings.deadWorkerRetention())) {
            gate.forget(workerId);
            reports.forget(workerId);
            log.info("worker {} was unhealthy for {} and is forgotten; it registers again if it comes back", workerId,
                    settings.deadWorkerRetention());
        }
        return expired;
    }

}
