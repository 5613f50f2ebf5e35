package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The leader's placement loop (SPEC sections 5 and 9): a round, due every
 * heartbeat-interval or at once when asked for, retries the deploys never answered,
 * places every orphaned pipeline on a ready worker, and moves one pipeline at a time
 * while the load is uneven by two or more. It sends each deploy and undeploy
 * ({@link CoordinatorCommands}) and records its outcome (a refusal backs the worker off,
 * {@link PlacementGate}), owns the commands in flight (the same command is not sent twice
 * within its period), and numbers the placements of a leadership: the placement epoch is
 * the leader's epoch in the upper 32 bits, a counter in the lower.
 * <p>
 * A coordinator that just started, or a follower just elected, first adopts what the
 * workers report running for one heartbeat-timeout (one heartbeat-interval) instead of
 * moving it: no round runs before {@link #adoptingUntil()}. Rounds run on the
 * coordinator's scheduler thread, one at a time.
 * <p>
 * Longer than most: placing, rebalancing and adopting all decide from the one set of
 * commands in flight it owns; split, two rounds could command the same unit.
 */
public class PlacementLoop implements LeaderElection.Listener {

    private static final Logger log = LoggerFactory.getLogger(PlacementLoop.class);

    /**
     * Placement epochs: the leader's epoch in the upper 32 bits, a counter of its
     * placements in the lower.
     */
    private static final int PLACEMENT_BITS = 32;

    /**
     * Commands in flight are forgotten after this many heartbeat-timeouts, answered or
     * not.
     */
    private static final int FORGET_COMMANDS_AFTER_TIMEOUTS = 10;

    private final CoordinatorSettings settings;

    private final ClusterState state;

    private final PlacementGate gate;

    private final Clock clock;

    private final LeaderElection election;

    private final CoordinatorCommands commands;

    private final TaskScheduler scheduler;

    private final CommandsInFlight inFlight;

    private final Set<String> moving = ConcurrentHashMap.newKeySet();

    private final AtomicLong placements = new AtomicLong();

    private volatile long placementLeaderEpoch;

    private volatile boolean placeNow;

    private volatile long lastPlacementRound = System.nanoTime();

    private volatile boolean running;

    private volatile Instant startedAt = Instant.now();

    private volatile Instant placementFrom = Instant.MAX;

    /**
     * @param settings the cluster's name, heartbeat-interval and -timeout,
     * command-timeout and rebalance-delay
     * @param state the cluster bookkeeping the rounds place in (its clock is the
     * coordinator's)
     * @param gate the workers that may take pipelines; told of each deploy's outcome
     * @param election whether this coordinator leads, at which epoch
     * @param commands sends the deploys and undeploys
     * @param scheduler the coordinator's scheduler: a round asked for runs on it at once
     */
    public PlacementLoop(CoordinatorSettings settings, ClusterState state, PlacementGate gate, LeaderElection election,
            CoordinatorCommands commands, TaskScheduler scheduler) {
        this.settings = settings;
        this.state = state;
        this.gate = gate;
        this.clock = state.clock();
        this.election = election;
        this.commands = commands;
        this.scheduler = scheduler;
        this.inFlight = new CommandsInFlight(clock);
    }

    /**
     * Starts the loop: orphaned pipelines are placed only after one heartbeat-timeout, so
     * that the pipelines the workers still run are adopted from their heartbeats first
     * instead of being moved.
     */
    public void start() {
        startedAt = clock.instant();
        placementFrom = startedAt.plus(settings.heartbeats().timeout());
        running = true;
    }

    /** Stops the loop: no round runs any more, a round asked for is dropped. */
    public void stop() {
        running = false;
    }

    /**
     * Starts numbering the placements of a leadership (a lease renewed again after a
     * lapse keeps its epoch, and the placements made under it their order), and adopts
     * from heartbeats for one more heartbeat-interval, so that a deploy the old leader
     * sent last shows first.
     * @param leads whether this coordinator leads now
     */
    @Override
    public void leadershipChanged(boolean leads) {
        if (!leads) {
            log.info("coordinator {} no longer leads cluster {}", election.coordinatorId(), settings.clusterName());
            return;
        }
        long leaderEpoch = election.epoch();
        if (leaderEpoch != placementLeaderEpoch) {
            placementLeaderEpoch = leaderEpoch;
            placements.set(0);
        }
        // A warm follower knows what runs; one heartbeat-interval more lets a deploy the
        // old leader sent last show.
        Instant settled = clock.instant().plus(settings.heartbeats().interval());
        Instant adoptedFrom = startedAt.plus(settings.heartbeats().timeout());
        placementFrom = settled.isAfter(adoptedFrom) ? settled : adoptedFrom;
        log.info("coordinator {} leads cluster {} at epoch {}; adopting from heartbeats until {}",
                election.coordinatorId(), settings.clusterName(), placementLeaderEpoch, placementFrom);
        if (running) {
            long wait = Math.max(0, Duration.between(clock.instant(), placementFrom).toMillis());
            scheduler.schedule(this::placeSoon, Instant.now().plusMillis(wait + 10));
        }
    }

    /**
     * @return whether this coordinator leads now (only the leader places and sends
     * commands)
     */
    public boolean isLeading() {
        return election.isLeader();
    }

    /**
     * @return whether this coordinator places pipelines now: it runs and leads
     */
    public boolean placesNow() {
        return running && election.isLeader();
    }

    /**
     * @return until when this coordinator adopts what the workers report instead of
     * placing orphaned pipelines (after its start, or its election), empty once that is
     * over
     */
    public Optional<Instant> adoptingUntil() {
        Instant until = placementFrom;
        return until.isAfter(clock.instant()) ? Optional.of(until) : Optional.empty();
    }

    /** Makes the next {@link #runIfDue} run a round (a worker died, for one). */
    public void requestRound() {
        placeNow = true;
    }

    /**
     * Runs a round now, when this coordinator places (a worker registered, a group was
     * stored).
     */
    public void placeSoonIfLeading() {
        if (placesNow()) {
            placeSoon();
        }
    }

    private void placeSoon() {
        requestRound();
        if (running) {
            scheduler.schedule(() -> {
                if (running) {
                    runIfDue();
                }
            }, Instant.now());
        }
    }

    /**
     * Runs a round when one is due (asked for, or a heartbeat-interval since the last),
     * this coordinator leads and its adoption window is over; forgets the commands sent
     * long ago.
     */
    public void runIfDue() {
        long now = System.nanoTime();
        boolean due = placeNow || now - lastPlacementRound >= settings.heartbeats().interval().toNanos();
        if (due && election.isLeader() && !clock.instant().isBefore(placementFrom)) {
            placeNow = false;
            lastPlacementRound = now;
            expireDeploys();
            state.place(this::nextPlacementEpoch).forEach(this::deploy);
            rebalance();
        }
        inFlight.forgetSentBefore(
                clock.instant().minus(settings.heartbeats().timeout().multipliedBy(FORGET_COMMANDS_AFTER_TIMEOUTS)));
    }

    /**
     * @param key a command's key ({@code worker@register}, {@code unit@worker@undeploy},
     * ...)
     * @param period how long one such command holds back the next
     * @return whether no command with this key was sent within the period; if so, this
     * one is recorded
     */
    public boolean firstCommandIn(String key, Duration period) {
        return inFlight.firstIn(key, period);
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

    /**
     * Places the unplaced pipelines of one group now and deploys them (a group just
     * declared on the leader).
     * @param group the group's name
     * @return completes once every deploy's outcome is recorded (never exceptionally); at
     * once when this coordinator does not lead
     */
    public CompletableFuture<Void> placeGroup(String group) {
        if (!election.isLeader()) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(state.place(group, this::nextPlacementEpoch)
            .entrySet()
            .stream()
            .map(e -> deploy(e.getKey(), e.getValue()))
            .toArray(CompletableFuture[]::new));
    }

    /**
     * A deploy that was never answered (leadership lost while it was in flight) is tried
     * again.
     */
    private void expireDeploys() {
        Instant limit = clock.instant().minus(settings.commandTimeout().multipliedBy(2));
        for (PipelineGroupSpec group : state.groups()) {
            for (PipelineUnit unit : PipelineUnit.of(group)) {
                String key = unit.key();
                state.placement(key)
                    .filter(p -> !p.isRunning() && p.since().isBefore(limit) && !inFlight.contains(flightKey(key, p)))
                    .ifPresent(p -> state.deployFailed(key, p, "no answer to the deploy"));
            }
        }
    }

    private void rebalance() {
        if (!moving.isEmpty()) {
            return;
        }
        state.rebalance(settings.rebalanceDelay()).ifPresent(move -> {
            String key = move.getKey();
            Placement from = state.placement(key).orElse(null);
            if (from == null || !moving.add(key)) {
                return;
            }
            log.info("rebalancing: moving pipeline {} from worker {} ({} pipelines) to worker {} ({} pipelines)", key,
                    from.worker(), state.pipelinesOf(from.worker()).size(), move.getValue(),
                    state.pipelinesOf(move.getValue()).size());
            commands.send(from.worker(), Commands.UNDEPLOY, Commands.Undeploy.of(PipelineUnit.parse(key), from.epoch()))
                .handle((reply, error) -> {
                    String failure = failure(reply, error);
                    if (failure == null) {
                        state.move(key, move.getValue(), nextPlacementEpoch()).ifPresent(p -> deploy(key, p));
                    }
                    else {
                        log.warn("rebalancing: worker {} did not undeploy {} ({}); it stays there", from.worker(), key,
                                failure);
                    }
                    moving.remove(key);
                    return null;
                });
        });
    }

    /**
     * Sends the deploy of a placed pipeline (once per command-timeout) and records its
     * outcome; nothing when this coordinator does not lead or the group is gone.
     * @param key the pipeline unit's key
     * @param placed where it is placed, with its placement epoch
     * @return completes once the outcome is recorded (never exceptionally)
     */
    public CompletableFuture<Void> deploy(String key, Placement placed) {
        PipelineUnit unit = PipelineUnit.parse(key);
        PipelineGroupSpec group = state.group(unit.group()).orElse(null);
        String flightKey = flightKey(key, placed);
        if (group == null || !election.isLeader() || !inFlight.firstIn(flightKey, settings.commandTimeout())) {
            return CompletableFuture.completedFuture(null);
        }
        return commands
            .send(placed.worker(), Commands.DEPLOY,
                    new Commands.Deploy(group, unit.pipeline(), placed.epoch(), unit.partitionOrNull()))
            .handle((reply, error) -> {
                inFlight.answered(flightKey);
                String failure = failure(reply, error);
                if (failure == null) {
                    gate.deployed(placed.worker());
                    state.deployed(key, placed);
                    log.info("pipeline {} placed on worker {} ({}, placement epoch {})", key, placed.worker(),
                            reply.path("status").asText(), placed.epoch());
                }
                else {
                    state.deployFailed(key, placed, failure);
                    // Only a worker that answered with a refusal is backed off: no answer
                    // is a NATS outage or a
                    // dead worker (its heartbeats tell), which must not keep a healthy
                    // worker out for minutes.
                    log.warn(
                            "deploy of {} on worker {} failed: {}; the pipeline is unplaced until a later "
                                    + "placement round succeeds{}",
                            key, placed.worker(), failure,
                            error != null ? "" : "; no pipeline goes to that worker until "
                                    + gate.deployFailed(placed.worker(), failure).until());
                }
                return null;
            });
    }

    /**
     * Stops a superseded copy at once (again after command-timeout), with its epoch: a
     * newer copy there stays.
     * @param workerId the worker that still runs the copy
     * @param key the pipeline unit's key
     * @param epoch the copy's placement epoch
     */
    public void undeployStaleCopy(String workerId, String key, long epoch) {
        if (election.isLeader() && inFlight.firstIn(key + "@" + workerId + "@undeploy", settings.commandTimeout())) {
            log.info("worker {} still runs {} (placement epoch {}), which now runs elsewhere; undeploying it there",
                    workerId, key, epoch);
            commands.send(workerId, Commands.UNDEPLOY, Commands.Undeploy.of(PipelineUnit.parse(key), epoch));
        }
    }

    /**
     * Stops a unit the cluster no longer has on a worker that still runs it, with the
     * copy's epoch; the caller decided it must go and recorded the command
     * ({@link #firstCommandIn}).
     * @param workerId the worker
     * @param unit the unit
     * @param epoch the copy's placement epoch
     */
    public void undeployRemoved(String workerId, PipelineUnit unit, long epoch) {
        commands.send(workerId, Commands.UNDEPLOY, Commands.Undeploy.of(unit, epoch));
    }

    /**
     * Undeploys every pipeline of a removed group. A worker that does not confirm (down,
     * or too slow) is not a reason to stop: the pipelines it still runs are undeployed
     * when its next heartbeat reports them, like any pipeline it no longer owns.
     * @param placed where the group's pipelines ran, {@code unit key -> worker id}
     * @return completes once every worker answered or failed to (never exceptionally)
     */
    public CompletableFuture<Void> undeployAll(Map<String, String> placed) {
        return CompletableFuture.allOf(placed.entrySet()
            .stream()
            .map(e -> commands
                .send(e.getValue(), Commands.UNDEPLOY, Commands.Undeploy.of(PipelineUnit.parse(e.getKey()), null))
                .exceptionally(error -> {
                    log.warn("worker {} did not confirm the undeploy of {} ({}); it is undeployed when the worker "
                            + "heartbeats again", e.getValue(), e.getKey(), error.toString());
                    return null;
                }))
            .toArray(CompletableFuture[]::new));
    }

    private static String flightKey(String key, Placement placed) {
        return key + "@" + placed.worker() + "@" + placed.epoch();
    }

    /**
     * What went wrong with a command, in words, or {@code null} when the worker confirmed
     * it.
     */
    private String failure(JsonNode reply, Throwable error) {
        if (error == null) {
            return reply != null && reply.has("error") ? reply.path("error").asText() : null;
        }
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof TimeoutException || cause instanceof CancellationException) {
            return "no answer within " + settings.commandTimeout().toMillis() + " ms (the worker is down, cut "
                    + "off or busy)";
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

}
