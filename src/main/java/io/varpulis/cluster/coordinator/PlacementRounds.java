package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import io.varpulis.cluster.node.ClusterProperties;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;

/**
 * The leader's placement rounds (SPEC sections 5 and 9), run from the {@link CoordinatorNode}'s tick: a round, due
 * every heartbeat-interval or at once when asked for, retries the deploys never answered, places every orphaned
 * pipeline on a ready worker, and moves one pipeline at a time while the load is uneven by two or more. It sends each
 * deploy and records its outcome (a refusal backs the worker off, {@link PlacementGate}), and numbers the placements
 * of a leadership: the placement epoch is the leader's epoch in the upper 32 bits, a counter in the lower.
 */
final class PlacementRounds {

    /** The coordinator's log category: what a round logs reads as before. */
    private static final Logger log = LoggerFactory.getLogger(CoordinatorNode.class);

    /** Placement epochs: the leader's epoch in the upper 32 bits, a counter of its placements in the lower. */
    private static final int PLACEMENT_BITS = 32;

    /** Sends a command with the leader's fence (id, epoch, cluster); fails when this coordinator does not lead. */
    @FunctionalInterface
    interface LeaderCommand {
        CompletableFuture<JsonNode> send(String workerId, String command, Object payload);
    }

    private final ClusterProperties cluster;
    private final ClusterState state;
    private final PlacementGate gate;
    private final Clock clock;
    private final LeaderElection election;
    private final LeaderCommand command;
    private final BiPredicate<String, Duration> firstCommandIn;
    private final Map<String, Instant> commandsInFlight;
    private final Set<String> moving = ConcurrentHashMap.newKeySet();
    private final AtomicLong placements = new AtomicLong();
    private volatile long placementLeaderEpoch;
    private volatile boolean placeNow;
    private volatile long lastPlacementRound;

    /**
     * @param cluster          heartbeat-interval, command-timeout and rebalance-delay
     * @param state            the cluster bookkeeping the rounds place in
     * @param gate             the workers that may take pipelines; told of each deploy's outcome
     * @param clock            the coordinator's clock
     * @param election         whether this coordinator leads
     * @param command          sends a fenced command to a worker
     * @param firstCommandIn   whether no command with a key was sent within a period (records this one)
     * @param commandsInFlight the coordinator's commands in flight, {@code key -> sent at}, shared with
     *                         {@code firstCommandIn}
     * @param lastRound        when the last round ran, on {@link System#nanoTime()}
     */
    PlacementRounds(ClusterProperties cluster, ClusterState state, PlacementGate gate, Clock clock,
                    LeaderElection election, LeaderCommand command, BiPredicate<String, Duration> firstCommandIn,
                    Map<String, Instant> commandsInFlight, long lastRound) {
        this.cluster = cluster;
        this.state = state;
        this.gate = gate;
        this.clock = clock;
        this.election = election;
        this.command = command;
        this.firstCommandIn = firstCommandIn;
        this.commandsInFlight = commandsInFlight;
        this.lastPlacementRound = lastRound;
    }

    /** Makes the next {@link #runIfDue} run a round (a worker registered or died, a group was stored, an election). */
    void requestRound() {
        placeNow = true;
    }

    /**
     * Starts numbering the placements of a leadership; a lease renewed again after a lapse keeps its epoch, and the
     * placements made under it their order.
     *
     * @param leaderEpoch the epoch this coordinator leads at
     */
    void leadAt(long leaderEpoch) {
        if (leaderEpoch != placementLeaderEpoch) {
            placementLeaderEpoch = leaderEpoch;
            placements.set(0);
        }
    }

    /**
     * @return the leader epoch the placement epochs are numbered under
     */
    long leaderEpoch() {
        return placementLeaderEpoch;
    }

    /**
     * Runs a round when one is due (asked for, or a heartbeat-interval since the last), this coordinator leads and
     * its adoption window is over.
     *
     * @param placementFrom the end of the adoption window (after the start, or the election)
     */
    void runIfDue(Instant placementFrom) {
        long now = System.nanoTime();
        boolean due = placeNow || now - lastPlacementRound >= cluster.getHeartbeatInterval().toNanos();
        if (due && election.isLeader() && !clock.instant().isBefore(placementFrom)) {
            placeNow = false;
            lastPlacementRound = now;
            expireDeploys();
            state.place(this::nextPlacementEpoch).forEach(this::deploy);
            rebalance();
        }
    }

    /**
     * @return the next placement epoch of this leadership
     * @throws IllegalStateException when this leadership made 2^32 placements
     */
    long nextPlacementEpoch() {
        long count = placements.incrementAndGet();
        if (count >= 1L << PLACEMENT_BITS) {
            throw new IllegalStateException("this leadership made 2^32 placements; the placement epochs are used up "
                    + "until the next election");
        }
        return (placementLeaderEpoch << PLACEMENT_BITS) | count;
    }

    /** A deploy that was never answered (leadership lost while it was in flight) is tried again. */
    private void expireDeploys() {
        Instant limit = clock.instant().minus(cluster.getCommandTimeout().multipliedBy(2));
        for (PipelineGroupSpec group : state.groups()) {
            for (PipelineUnit unit : PipelineUnit.of(group)) {
                String key = unit.key();
                state.placement(key).filter(p -> !p.isRunning() && p.since().isBefore(limit)
                                && !commandsInFlight.containsKey(flightKey(key, p)))
                        .ifPresent(p -> state.deployFailed(key, p, "no answer to the deploy"));
            }
        }
    }

    private void rebalance() {
        if (!moving.isEmpty()) {
            return;
        }
        state.rebalance(cluster.getRebalanceDelay()).ifPresent(move -> {
            String key = move.getKey();
            Placement from = state.placement(key).orElse(null);
            if (from == null || !moving.add(key)) {
                return;
            }
            log.info("rebalancing: moving pipeline {} from worker {} ({} pipelines) to worker {} ({} pipelines)",
                    key, from.worker(), state.pipelinesOf(from.worker()).size(), move.getValue(),
                    state.pipelinesOf(move.getValue()).size());
            command.send(from.worker(), Commands.UNDEPLOY, Commands.Undeploy.of(PipelineUnit.parse(key), from.epoch()))
                    .handle((reply, error) -> {
                        String failure = failure(reply, error);
                        if (failure == null) {
                            state.move(key, move.getValue(), nextPlacementEpoch()).ifPresent(p -> deploy(key, p));
                        } else {
                            log.warn("rebalancing: worker {} did not undeploy {} ({}); it stays there", from.worker(),
                                    key, failure);
                        }
                        moving.remove(key);
                        return null;
                    });
        });
    }

    /**
     * Sends the deploy of a placed pipeline (once per command-timeout) and records its outcome; nothing when this
     * coordinator does not lead or the group is gone.
     *
     * @param key    the pipeline unit's key
     * @param placed where it is placed, with its placement epoch
     * @return completes once the outcome is recorded (never exceptionally)
     */
    CompletableFuture<Void> deploy(String key, Placement placed) {
        PipelineUnit unit = PipelineUnit.parse(key);
        PipelineGroupSpec group = state.group(unit.group()).orElse(null);
        String flightKey = flightKey(key, placed);
        if (group == null || !election.isLeader()
                || !firstCommandIn.test(flightKey, cluster.getCommandTimeout())) {
            return CompletableFuture.completedFuture(null);
        }
        return command.send(placed.worker(), Commands.DEPLOY, new Commands.Deploy(group, unit.pipeline(),
                        placed.epoch(), unit.partitionOrNull()))
                .handle((reply, error) -> {
                    commandsInFlight.remove(flightKey);
                    String failure = failure(reply, error);
                    if (failure == null) {
                        gate.deployed(placed.worker());
                        state.deployed(key, placed);
                        log.info("pipeline {} placed on worker {} ({}, placement epoch {})", key, placed.worker(),
                                reply.path("status").asText(), placed.epoch());
                    } else {
                        state.deployFailed(key, placed, failure);
                        // Only a worker that answered with a refusal is backed off: no answer is a NATS outage or a
                        // dead worker (its heartbeats tell), which must not keep a healthy worker out for minutes.
                        log.warn("deploy of {} on worker {} failed: {}; the pipeline is unplaced until a later "
                                + "placement round succeeds{}", key, placed.worker(), failure, error != null ? ""
                                : "; no pipeline goes to that worker until "
                                + gate.deployFailed(placed.worker(), failure).until());
                    }
                    return null;
                });
    }

    private static String flightKey(String key, Placement placed) {
        return key + "@" + placed.worker() + "@" + placed.epoch();
    }

    /** What went wrong with a command, in words, or {@code null} when the worker confirmed it. */
    private String failure(JsonNode reply, Throwable error) {
        if (error == null) {
            return reply != null && reply.has("error") ? reply.path("error").asText() : null;
        }
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof TimeoutException || cause instanceof java.util.concurrent.CancellationException) {
            return "no answer within " + cluster.getCommandTimeout().toMillis() + " ms (the worker is down, cut "
                    + "off or busy)";
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }
}
