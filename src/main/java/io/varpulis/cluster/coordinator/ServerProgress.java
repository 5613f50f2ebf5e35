package io.varpulis.cluster.coordinator;

import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.cluster.worker.WorkerIdLease;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;
import io.varpulis.pipeline.RouteEdge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What a JetStream server shows of a worker's activity, for {@link LateWorkers}: the
 * revision of its worker-id lease ({@link WorkerIdLease}, renewed with every heartbeat it
 * sends, stored or not) and, for the pipelines placed on it, their durable consumers' ack
 * floors (they move up only when the worker acks what it applied). The delivered sequence
 * and ack-pending count are left out: the server moves them (redeliveries, ack waits)
 * without the worker. All of it is the server's own bookkeeping, read from the stream and
 * consumer leaders; no clock is compared.
 * <p>
 * The reads run on the coordinator's scheduler, in its health check, so they are bounded:
 * a worker's reading is used again for {@value #CACHED_FOR_MILLIS} ms (one health check),
 * and the reads of one round ({@link #beginRound()}) stop after
 * {@value #ROUND_BUDGET_MILLIS} ms in all (a read started in time may still run its 1 s
 * request timeout): the workers left out get no evidence this round and are read first in
 * the next one. A degraded routing stream (each read timing out) then delays placement
 * and expiry by at most about 1.5 s per round, not 9 reads per silent worker. Thread-safe
 * (reads hold this object's lock; only the scheduler calls it).
 */
public final class ServerProgress implements LateWorkers.Evidence {

    /**
     * Consumers read per worker and check, at most: enough to see progress, bounded for a
     * worker with many.
     */
    static final int MAX_CONSUMERS = 8;

    /**
     * How long a worker's reading is used again before it is read anew, in milliseconds:
     * one health check.
     */
    static final long CACHED_FOR_MILLIS = 1000;

    /** How long the reads of one round may take in all, in milliseconds. */
    static final long ROUND_BUDGET_MILLIS = 500;

    /**
     * Readings of workers not asked about for this long are forgotten (the worker was
     * heard from again).
     */
    private static final long FORGOTTEN_AFTER_NANOS = Duration.ofMinutes(1).toNanos();

    private static final Logger log = LoggerFactory.getLogger(ServerProgress.class);

    private final JetStreamManagement jsm;

    private final ClusterState state;

    private final LongSupplier nanoTime;

    // Guarded by this: each worker's last reading, the workers left out in this round and
    // the last, and the end of
    // this round's budget on nanoTime.
    private final Map<String, Reading> readings = new HashMap<>();

    private Set<String> leftOutLastRound = Set.of();

    private Set<String> leftOut = new HashSet<>();

    private long deadline;

    /**
     * @param jsm JetStream management with a short request timeout (each read is one
     * round-trip)
     * @param state where the worker's pipelines are placed
     * @param nanoTime the coordinator's monotonic clock, in nanoseconds
     */
    public ServerProgress(JetStreamManagement jsm, ClusterState state, LongSupplier nanoTime) {
        this.jsm = jsm;
        this.state = state;
        this.nanoTime = nanoTime;
        this.deadline = nanoTime.getAsLong() + ROUND_BUDGET_MILLIS * 1_000_000;
    }

    /**
     * Starts a round of reads: a new budget; the workers left out in the last round are
     * read first.
     */
    @Override
    public synchronized void beginRound() {
        long now = nanoTime.getAsLong();
        deadline = now + ROUND_BUDGET_MILLIS * 1_000_000;
        leftOutLastRound = leftOut;
        leftOut = new HashSet<>();
        readings.values().removeIf(reading -> now - reading.readAt > FORGOTTEN_AFTER_NANOS);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Keys: {@code "lease revision"} (the worker-id lease's stream sequence) and
     * {@code "<durable> ack floor"} (a route consumer's ack floor stream sequence); a
     * read that failed or timed out leaves its key out.
     */
    @Override
    public synchronized Map<String, Long> of(String workerId) {
        long now = nanoTime.getAsLong();
        Reading last = readings.get(workerId);
        if (last != null && now - last.readAt < CACHED_FOR_MILLIS * 1_000_000) {
            return last.counters;
        }
        // A worker read last time waits one round for those the budget left out then (it
        // is not left out itself).
        if (last != null && !leftOutLastRound.isEmpty() && !leftOutLastRound.contains(workerId)) {
            return Map.of();
        }
        if (outOfBudget()) {
            leftOut.add(workerId);
            return Map.of();
        }
        Map<String, Long> counters = read(workerId);
        readings.put(workerId, new Reading(counters, now));
        return counters;
    }

    private boolean outOfBudget() {
        return nanoTime.getAsLong() - deadline >= 0;
    }

    /**
     * Reads the worker's counters while the round's budget lasts. Called holding the
     * lock.
     */
    private Map<String, Long> read(String workerId) {
        Map<String, Long> counters = new LinkedHashMap<>();
        try {
            counters.put(
                    "lease revision", jsm
                        .getLastMessage("KV_" + ControlPlaneBuckets.WORKER_IDS,
                                "$KV." + ControlPlaneBuckets.WORKER_IDS + "." + workerId)
                        .getSeq());
        }
        catch (Exception e) {
            log.debug("worker id lease of {} not read: {}", workerId, e.toString());
        }
        for (String durable : durablesOf(workerId)) {
            if (outOfBudget()) {
                break;
            }
            try {
                ConsumerInfo info = jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM, durable);
                counters.put(durable + " ack floor", info.getAckFloor().getStreamSequence());
            }
            catch (Exception e) {
                log.debug("consumer {} not read: {}", durable, e.toString());
            }
        }
        return counters;
    }

    /** What the server showed of a worker, and when it was read, on nanoTime. */
    private record Reading(Map<String, Long> counters, long readAt) {
    }

    /**
     * The durables of the route edges into the units placed on the worker, at most
     * {@link #MAX_CONSUMERS}.
     */
    private List<String> durablesOf(String workerId) {
        List<String> durables = new ArrayList<>();
        for (String key : state.pipelinesOf(workerId)) {
            PipelineUnit unit = PipelineUnit.parse(key);
            Optional<PipelineGroupSpec> group = state.group(unit.group());
            if (group.isEmpty()) {
                continue;
            }
            for (RouteEdge edge : group.get().inputEdges(unit.pipeline())) {
                RouteEdge into = unit.partitionOrNull() == null ? edge : edge.partition(unit.partitionOrNull());
                durables.add(DurableNames.routeConsumer(into.to(), into.subject()));
                if (durables.size() == MAX_CONSUMERS) {
                    return durables;
                }
            }
        }
        return durables;
    }

}
