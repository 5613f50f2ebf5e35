package io.varpulis.cluster.coordinator;

import io.varpulis.jetstream.DurableNames;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The checks a coordinator makes of a group against the rest of its NATS account: a group
 * to declare must not share a durable consumer with another group (ADR-007's sanitised
 * names) nor take the name of a live cluster's group; a follower purging a removed group
 * first waits until the leader stopped its pipelines.
 */
final class GroupChecks {

    private static final Logger log = LoggerFactory.getLogger(GroupChecks.class);

    private GroupChecks() {
    }

    /**
     * ADR-007's durable names replace every character outside {@code [A-Za-z0-9_-]} with
     * {@code _}, so two edges can map to one durable ({@code g}/{@code a_b} and
     * {@code g_a}/{@code b}); sharing it would hand one edge's events to the other.
     * Refused when the group is declared.
     * @param known the groups of the cluster
     * @param group the group to declare
     * @throws IllegalArgumentException when one of its route edges would share a durable
     * consumer with another edge
     */
    static void rejectDurableNameCollisions(Collection<PipelineGroupSpec> known, PipelineGroupSpec group) {
        Map<String, String> subjects = new HashMap<>();
        for (PipelineGroupSpec other : known) {
            durables(other).forEach(subjects::put);
        }
        durables(group).forEach((durable, subject) -> {
            String other = subjects.putIfAbsent(durable, subject);
            if (other != null && !other.equals(subject)) {
                throw new IllegalArgumentException(
                        "route edge " + subject + " would share the durable consumer " + durable + " with " + other
                                + " (names are sanitised to [A-Za-z0-9_-]); rename the group " + "or a pipeline");
            }
        });
    }

    /**
     * Route subjects and durables carry the group name, not the cluster's: one name, one
     * cluster per account. A name stored by a cluster without a live leader is only
     * warned about.
     * @param group the group to declare
     * @param storedBy the group names other clusters stored, by cluster
     * ({@link GroupStore#otherClusters()})
     * @param liveLeader whether another cluster has a live leader
     * ({@link LeaderElection#otherClusters()})
     * @throws IllegalStateException when a live other cluster uses the group's name
     */
    static void rejectNameOfAnotherCluster(PipelineGroupSpec group, Map<String, Set<String>> storedBy,
            Predicate<String> liveLeader) {
        storedBy.forEach((other, names) -> {
            if (!names.contains(group.name()) || other.isEmpty()) {
                return;
            }
            if (liveLeader.test(other)) {
                throw new IllegalStateException("pipeline group name " + group.name() + " is used by cluster " + other
                        + " in this NATS account: both would share its route subjects and durable "
                        + "consumers; choose another name, or give each cluster its own NATS account");
            }
            log.warn("pipeline group name {} is also stored by cluster {}, which has no live leader; its routes and "
                    + "durable consumers are shared with that group's", group.name(), other);
        });
    }

    private static Map<String, String> durables(PipelineGroupSpec group) {
        Map<String, String> durables = new LinkedHashMap<>();
        for (PipelineGroupSpec.PipelineSpec pipeline : group.pipelines()) {
            for (RouteEdge edge : group.consumedEdges(pipeline.name())) {
                durables.put(DurableNames.routeConsumer(edge.to(), edge.subject()), edge.subject());
            }
        }
        return durables;
    }

    /**
     * A follower removing a group with purge waits until the leader stopped its
     * pipelines: until no ready worker reports one in a heartbeat sent after the delete,
     * or command-timeout plus two heartbeats have passed. Returns early, with the
     * interrupt flag set, when interrupted.
     * @param name the removed group
     * @param state the cluster bookkeeping (the workers' heartbeats)
     * @param clock the coordinator's clock
     * @param wait how long at most: command-timeout plus two heartbeat intervals
     */
    static void awaitStoppedEverywhere(String name, ClusterState state, Clock clock, Duration wait) {
        Instant deleted = clock.instant();
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() - deadline < 0) {
            boolean stopped = state.workers()
                .stream()
                .filter(WorkerRecord::isReady)
                .allMatch(w -> w.lastHeartbeat() != null && w.lastHeartbeat().isAfter(deleted) && w.heartbeat() != null
                        && w.heartbeat().pipelineMetrics().stream().noneMatch(m -> name.equals(m.group())));
            if (stopped) {
                return;
            }
            try {
                Thread.sleep(50);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        log.warn("pipeline group {}: some of its pipelines were still reported running when the purge started", name);
    }

}
