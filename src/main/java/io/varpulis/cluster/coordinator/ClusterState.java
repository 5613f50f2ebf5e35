package io.varpulis.cluster.coordinator;

import io.varpulis.cluster.protocol.Registration;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The coordinator's view of the cluster: registered workers, their health, the pipeline
 * groups and where each pipeline is placed ({@link Placement}), with the last failed
 * deploy of a pipeline that is not placed. Pure bookkeeping, no I/O; the coordinator's
 * parts act on it ({@link PlacementLoop} places in it, {@link WorkerAdmission} and
 * {@link HeartbeatReconciliation} record what the workers say). Thread-safe.
 * <p>
 * The unit of placement is a {@link PipelineUnit}: an unpartitioned pipeline
 * ({@code group/pipeline}) or one partition of a partitioned one
 * ({@code group/pipeline/partition}, SPEC section 11), each with its own placement and
 * epoch; the "pipelines" of a worker below are such units.
 * <p>
 * Liveness is measured on this coordinator's monotonic clock, never by comparing two
 * hosts' wall clocks (SPEC section 9): a worker's last sign of life is the moment its
 * heartbeat was received minus the heartbeat's age on the server's clock
 * ({@link ServerClock}). The instants shown (registered, last heartbeat, status since)
 * are on this coordinator's wall clock.
 * <p>
 * One class, longer than most: every placement decision reads the workers (ready, load,
 * capacity) and the groups' units together, and forgetting a worker or removing a group
 * unplaces pipelines in the same step; split in two, each half would call the other for
 * every change.
 */
public class ClusterState {

    private final Clock clock;

    private final WorkerLiveness liveness;

    private final Map<String, WorkerRecord> workers = new ConcurrentHashMap<>();

    private final Map<String, PipelineGroupSpec> groups = new LinkedHashMap<>();

    /** group/pipeline (or group/pipeline/partition) -> placement. */
    private final Map<String, Placement> placement = new LinkedHashMap<>();

    /**
     * group/pipeline -> the last deploy that failed, while the pipeline is not placed.
     */
    private final Map<String, FailedDeploy> failures = new LinkedHashMap<>();

    /**
     * group/pipeline -> why a worker could not open its state, as the worker reported it,
     * until it runs.
     */
    private final Map<String, String> stateReasons = new LinkedHashMap<>();

    private final PlacementFilter filter;

    /**
     * Bookkeeping that places on every ready worker ({@link PlacementFilter#ANY}).
     * @param clock the time of registrations and heartbeats, as shown; liveness is
     * measured with {@link System#nanoTime()}
     */
    public ClusterState(Clock clock) {
        this(clock, PlacementFilter.ANY);
    }

    /**
     * @param clock the time of registrations and heartbeats, as shown; liveness is
     * measured with {@link System#nanoTime()}
     * @param filter which workers may take which pipeline (capabilities, deploy backoff),
     * asked by {@link #place} and {@link #rebalance}
     */
    public ClusterState(Clock clock, PlacementFilter filter) {
        this(clock, System::nanoTime, filter);
    }

    /**
     * @param clock the time of registrations and heartbeats, as shown
     * @param nanoTime the monotonic clock liveness is measured with, in nanoseconds
     * @param filter which workers may take which pipeline, asked by {@link #place} and
     * {@link #rebalance}
     */
    public ClusterState(Clock clock, LongSupplier nanoTime, PlacementFilter filter) {
        this.clock = clock;
        this.liveness = new WorkerLiveness(nanoTime);
        this.filter = filter;
    }

    /**
     * @return this coordinator's wall clock (the instants it shows; never compared with
     * another host's)
     */
    public Clock clock() {
        return clock;
    }

    /**
     * @return this coordinator's monotonic clock now, in nanoseconds: the time liveness
     * is measured in
     */
    public long nanoTime() {
        return liveness.now();
    }

    /**
     * Records a registration; a known worker keeps its placement.
     * @param request the registration
     * @return the worker's record
     */
    public WorkerRecord register(Registration.Request request) {
        Instant now = clock.instant();
        liveness.signOfLife(request.workerId(), Duration.ZERO);
        return workers.compute(request.workerId(),
                (id, old) -> new WorkerRecord(id, request.address(), WorkerRecord.READY, request.capacity(), now,
                        old == null ? now : old.lastHeartbeat(), old == null ? null : old.heartbeat(),
                        old != null && old.isReady() ? old.statusSince() : now));
    }

    /**
     * Records a fresh heartbeat. The worker's last sign of life becomes the time the
     * heartbeat was stored, not the time it was applied: a heartbeat replayed after a
     * coordinator restart does not make a dead worker look alive longer. The capacity's
     * {@code pipelines_running} follows the heartbeat's; its state failures are recorded
     * ({@link #stateReason}).
     * @param workerId the worker
     * @param heartbeat its heartbeat
     * @param age how long ago it was stored, on the server's clock (zero on core)
     * @return the updated record, or empty when the worker is unknown (it must register
     * again)
     */
    public Optional<WorkerRecord> heartbeat(String workerId, WorkerHeartbeat heartbeat, Duration age) {
        if (!workers.containsKey(workerId)) {
            return Optional.empty();
        }
        liveness.signOfLife(workerId, age);
        heartbeat.stateFailures().forEach((key, error) -> stateFailed(key, workerId, error));
        Instant sentAt = clock.instant().minus(age);
        return Optional.ofNullable(workers.computeIfPresent(workerId, (id, old) -> {
            Instant last = old.lastHeartbeat() == null || sentAt.isAfter(old.lastHeartbeat()) ? sentAt
                    : old.lastHeartbeat();
            Registration.Capacity capacity = old.capacity() == null ? null : new Registration.Capacity(
                    old.capacity().cpuCores(), heartbeat.pipelinesRunning(), old.capacity().maxPipelines());
            return new WorkerRecord(id, old.address(), WorkerRecord.READY, capacity, old.registeredAt(), last,
                    heartbeat, old.isReady() ? old.statusSince() : clock.instant());
        }));
    }

    /**
     * Marks workers unhealthy that the verdict finds dead, given how long they have been
     * silent. A registration counts as a sign of life: a worker that registers again
     * after being unhealthy must not be expired again at once. So does
     * {@code livenessFromNanos}: heartbeats the coordinator could not receive because it
     * was cut off from NATS say nothing about the workers, so every worker's silence
     * starts at the moment the coordinator reached NATS again.
     * @param livenessFromNanos when the coordinator last regained NATS (its heartbeat
     * consumer), on {@link #nanoTime()}: no worker's silence starts before it
     * @param verdict decides, from a ready worker's silence, whether it is alive
     * @return the workers that became unhealthy now
     */
    public List<String> expire(long livenessFromNanos, LivenessVerdict verdict) {
        List<String> expired = new ArrayList<>();
        // The verdict may ask the server (LateWorkers): never while holding the map's
        // locks, which heartbeats need.
        verdict.beginRound();
        for (WorkerRecord worker : workers()) {
            Duration silence = liveness.silence(worker.workerId(), livenessFromNanos);
            if (!worker.isReady() || verdict.alive(worker.workerId(), silence)) {
                continue;
            }
            workers.computeIfPresent(worker.workerId(), (id, w) -> {
                // A sign of life that came while the verdict was asked wins.
                if (!w.isReady() || liveness.silence(id, livenessFromNanos).compareTo(silence) < 0) {
                    return w;
                }
                expired.add(id);
                liveness.unhealthy(id);
                return new WorkerRecord(id, w.address(), WorkerRecord.UNHEALTHY, w.capacity(), w.registeredAt(),
                        w.lastHeartbeat(), w.heartbeat(), clock.instant());
            });
        }
        return expired;
    }

    /**
     * Forgets the workers that have been unhealthy for longer than the retention, with
     * their placements (those pipelines are unplaced and placed again elsewhere).
     * @param retention dead-worker-retention
     * @return the workers forgotten now
     */
    public synchronized List<String> forgetDead(Duration retention) {
        List<String> forgotten = new ArrayList<>();
        workers.values().removeIf(w -> {
            if (!w.isReady() && liveness.unhealthyLongerThan(w.workerId(), retention)) {
                forgotten.add(w.workerId());
                return true;
            }
            return false;
        });
        liveness.forget(forgotten);
        placement.values().removeIf(p -> forgotten.contains(p.worker()));
        return forgotten;
    }

    /**
     * @return every known worker, by id
     */
    public List<WorkerRecord> workers() {
        return workers.values().stream().sorted(Comparator.comparing(WorkerRecord::workerId)).toList();
    }

    /**
     * @param workerId a worker id
     * @return its record
     */
    public Optional<WorkerRecord> worker(String workerId) {
        return Optional.ofNullable(workers.get(workerId));
    }

    /**
     * Adds a group, or replaces one of that name that differs (the group store's truth);
     * its new pipelines are unplaced until {@link #place} assigns them.
     * @param group the validated group
     * @return {@code false} when that very group was known already
     */
    public synchronized boolean addGroup(PipelineGroupSpec group) {
        PipelineGroupSpec old = groups.get(group.name());
        if (group.equals(old)) {
            return false;
        }
        if (old != null) {
            removeGroup(old.name());
        }
        groups.put(group.name(), group);
        return true;
    }

    /**
     * Removes a group and its placement.
     * @param name the group name
     * @return the placement it had (group/pipeline -> worker), empty when the group was
     * unknown
     */
    public synchronized Optional<Map<String, String>> removeGroup(String name) {
        if (groups.remove(name) == null) {
            return Optional.empty();
        }
        Map<String, String> removed = new LinkedHashMap<>();
        placement.entrySet().removeIf(e -> {
            if (inGroup(e.getKey(), name)) {
                removed.put(e.getKey(), e.getValue().worker());
                return true;
            }
            return false;
        });
        failures.keySet().removeIf(key -> inGroup(key, name));
        stateReasons.keySet().removeIf(key -> inGroup(key, name));
        return Optional.of(removed);
    }

    private static boolean inGroup(String key, String group) {
        return key.startsWith(group + "/");
    }

    /**
     * @return the groups, in declaration order
     */
    public synchronized List<PipelineGroupSpec> groups() {
        return List.copyOf(groups.values());
    }

    /**
     * @param name a group name
     * @return the group
     */
    public synchronized Optional<PipelineGroupSpec> group(String name) {
        return Optional.ofNullable(groups.get(name));
    }

    /**
     * @return where each pipeline is placed, {@code group/pipeline -> worker id}
     * (deploying or running)
     */
    public synchronized Map<String, String> placement() {
        Map<String, String> workerOf = new LinkedHashMap<>();
        placement.forEach((key, p) -> workerOf.put(key, p.worker()));
        return workerOf;
    }

    /**
     * @param key {@code group/pipeline}
     * @return its placement
     */
    public synchronized Optional<Placement> placement(String key) {
        return Optional.ofNullable(placement.get(key));
    }

    /**
     * @param key {@code group/pipeline}
     * @return its last failed deploy, while it is not placed
     */
    public synchronized Optional<FailedDeploy> failure(String key) {
        return Optional.ofNullable(failures.get(key));
    }

    /**
     * Places every pipeline (or partition) that has no worker, or whose worker is not
     * ready, on the ready worker with the fewest pipelines (ties by id), preferring a
     * worker other than the one its last deploy failed on, and for a partition a worker
     * that runs no other partition of its pipeline (partitions spread over workers where
     * there are enough).
     * @param epochs the placement epochs to give, one per new placement
     * @return the new placements, {@code group/pipeline -> placement} (state
     * {@value Placement#DEPLOYING}); unplaceable pipelines (no ready worker) stay out of
     * it and are tried again next time
     */
    public synchronized Map<String, Placement> place(LongSupplier epochs) {
        return place(groups.values(), epochs);
    }

    /**
     * Places the unplaced pipelines of one group, as {@link #place(LongSupplier)} does.
     * @param group the group name
     * @param epochs the placement epochs to give
     * @return the new placements
     */
    public synchronized Map<String, Placement> place(String group, LongSupplier epochs) {
        PipelineGroupSpec spec = groups.get(group);
        return spec == null ? Map.of() : place(List.of(spec), epochs);
    }

    private Map<String, Placement> place(Collection<PipelineGroupSpec> which, LongSupplier epochs) {
        Map<String, Placement> moves = new LinkedHashMap<>();
        for (PipelineGroupSpec group : which) {
            for (PipelineUnit unit : PipelineUnit.of(group)) {
                String key = unit.key();
                Placement current = placement.get(key);
                if (current != null && isReady(current.worker())) {
                    continue;
                }
                FailedDeploy failed = failures.get(key);
                PipelineGroupSpec.PipelineSpec spec = group.pipeline(unit.pipeline()).orElseThrow();
                Optional<String> target = leastLoadedReadyWorker(failed == null ? null : failed.worker(),
                        siblingHosts(unit), w -> filter.allows(w.workerId(), spec));
                if (target.isEmpty()) {
                    continue;
                }
                Placement next = new Placement(target.get(), epochs.getAsLong(), Placement.DEPLOYING, clock.instant());
                placement.put(key, next);
                moves.put(key, next);
            }
        }
        return moves;
    }

    /**
     * Records that a worker confirmed a deploy.
     * @param key {@code group/pipeline}
     * @param placed the placement the deploy was for
     * @return {@code false} when the pipeline was placed elsewhere meanwhile
     */
    public synchronized boolean deployed(String key, Placement placed) {
        Placement current = placement.get(key);
        if (current == null || current.epoch() != placed.epoch()) {
            return false;
        }
        placement.put(key, current.running(clock.instant()));
        failures.remove(key);
        stateReasons.remove(key);
        return true;
    }

    /**
     * Records a failed deploy: the pipeline is unplaced again, with the failure shown,
     * and the next placement round tries again (on another worker when there is one).
     * @param key {@code group/pipeline}
     * @param placed the placement the deploy was for
     * @param error why it failed
     */
    public synchronized void deployFailed(String key, Placement placed, String error) {
        Placement current = placement.get(key);
        if (current != null && current.epoch() == placed.epoch()) {
            placement.remove(key);
            failures.put(key, new FailedDeploy(placed.worker(), error, clock.instant()));
        }
    }

    /**
     * What a worker's report of a running pipeline means for the placement.
     */
    public enum Report {

        /** The pipeline is placed on that worker. */
        OWNED,
        /**
         * It was unplaced, placed on a worker that is not ready, or placed with an older
         * epoch than the report's (a newer leader placed it): it is now placed on the
         * reporting worker.
         */
        ADOPTED,
        /**
         * It is placed on another ready worker with a newer epoch: the reporting worker
         * must stop it.
         */
        ELSEWHERE,
        /**
         * Its group, or this unit of it, is unknown to this coordinator: removed while
         * the worker was cut off, a store entry this version cannot read, or another
         * cluster's group. The coordinator decides (it undeploys only the first, with a
         * durable group store).
         */
        UNKNOWN_GROUP

    }

    /**
     * Reconciles a worker's report that it runs a pipeline. A restarted coordinator, and
     * a new leader, adopt what the workers run instead of moving it.
     * @param key {@code group/pipeline}
     * @param workerId the reporting worker
     * @param epoch the placement epoch the worker runs it with (0: not said, an older
     * worker)
     * @return what the report means
     */
    public synchronized Report reportRunning(String key, String workerId, long epoch) {
        PipelineUnit unit = PipelineUnit.parse(key);
        PipelineGroupSpec group = groups.get(unit.group());
        if (group == null || !PipelineUnit.of(group).contains(unit)) {
            return Report.UNKNOWN_GROUP;
        }
        Instant now = clock.instant();
        Placement owner = placement.get(key);
        if (owner != null && workerId.equals(owner.worker())) {
            if (owner.isRunning() || epoch >= owner.epoch()) {
                placement.put(key, new Placement(workerId, Math.max(epoch, owner.epoch()), Placement.RUNNING,
                        owner.isRunning() ? owner.since() : now));
            }
            return Report.OWNED;
        }
        if (owner == null || !isReady(owner.worker()) || epoch > owner.epoch()) {
            placement.put(key, new Placement(workerId, epoch, Placement.RUNNING, now));
            failures.remove(key);
            return Report.ADOPTED;
        }
        return Report.ELSEWHERE;
    }

    /**
     * Records what a worker reports of a unit whose state it could not open, when the
     * unit is not running anywhere: the reason the topology shows (a deploy that timed
     * out says nothing of why).
     * @param key {@code group/pipeline}
     * @param workerId the reporting worker
     * @param error its state's error
     */
    public synchronized void stateFailed(String key, String workerId, String error) {
        Placement current = placement.get(key);
        if (groups.containsKey(PipelineUnit.parse(key).group()) && (current == null || !current.isRunning())) {
            stateReasons.put(key, "worker " + workerId + " cannot open its state: " + error);
        }
    }

    /**
     * @param key {@code group/pipeline}
     * @return why its state could not be opened, while it does not run
     */
    public synchronized Optional<String> stateReason(String key) {
        Placement current = placement.get(key);
        return current != null && current.isRunning() ? Optional.empty() : Optional.ofNullable(stateReasons.get(key));
    }

    /**
     * Whether a copy a worker reports is superseded, without adopting anything: for a
     * worker this coordinator does not know (yet), whose copies must stop before it
     * registers again.
     * @param key {@code group/pipeline}
     * @param workerId the reporting worker
     * @param epoch the placement epoch of its copy
     * @return {@code true} when the unit is placed on another ready worker with this
     * epoch or a newer one
     */
    public synchronized boolean supersedes(String key, String workerId, long epoch) {
        Placement owner = placement.get(key);
        return owner != null && !owner.worker().equals(workerId) && isReady(owner.worker()) && epoch <= owner.epoch();
    }

    /**
     * @param workerId a worker
     * @return the pipelines placed on it, as {@code group/pipeline}
     */
    public synchronized List<String> pipelinesOf(String workerId) {
        return placement.entrySet()
            .stream()
            .filter(e -> e.getValue().worker().equals(workerId))
            .map(Map.Entry::getKey)
            .toList();
    }

    /**
     * Finds one move that evens out the load (pipelines per ready worker): from the most
     * loaded ready worker to the least loaded one that has been ready for at least
     * {@code settled}, only when the first runs at least two pipelines more (hysteresis:
     * a move never makes the target the more loaded of the two, so moves never flap), and
     * only while no placement is still deploying. Only a target the
     * {@link PlacementFilter} allows for the moved pipeline counts: a worker that cannot
     * run it is never the least loaded one.
     * @param settled how long a target must have been ready (rebalance-delay)
     * @return {@code group/pipeline} and the target worker, or empty when the load is
     * even enough
     */
    public synchronized Optional<Map.Entry<String, String>> rebalance(Duration settled) {
        if (placement.values().stream().anyMatch(p -> !p.isRunning())) {
            return Optional.empty();
        }
        Map<String, Long> load = load();
        Optional<String> busiest = load.entrySet()
            .stream()
            .max(Map.Entry.<String, Long>comparingByValue()
                .thenComparing(Map.Entry.<String, Long>comparingByKey().reversed()))
            .map(Map.Entry::getKey);
        if (busiest.isEmpty() || load.get(busiest.get()) == 0) {
            return Optional.empty();
        }
        List<String> candidates = pipelinesOf(busiest.get());
        String candidate = candidates.get(candidates.size() - 1);
        PipelineUnit unit = PipelineUnit.parse(candidate);
        Optional<PipelineGroupSpec.PipelineSpec> spec = group(unit.group()).flatMap(g -> g.pipeline(unit.pipeline()));
        Instant settledBefore = clock.instant().minus(settled);
        Optional<String> target = spec.flatMap(p -> leastLoadedReadyWorker(null, Set.of(), w -> w.statusSince() != null
                && !w.statusSince().isAfter(settledBefore) && filter.allows(w.workerId(), p)));
        if (target.isEmpty() || load.get(busiest.get()) - load.get(target.get()) < 2) {
            return Optional.empty();
        }
        return Optional.of(Map.entry(candidate, target.get()));
    }

    /**
     * Moves a pipeline whose old host confirmed the undeploy.
     * @param key {@code group/pipeline}
     * @param target the new worker
     * @param epoch the new placement epoch
     * @return the new placement (deploying), or empty when the pipeline is gone meanwhile
     */
    public synchronized Optional<Placement> move(String key, String target, long epoch) {
        if (!placement.containsKey(key)) {
            return Optional.empty();
        }
        Placement next = new Placement(target, epoch, Placement.DEPLOYING, clock.instant());
        placement.put(key, next);
        return Optional.of(next);
    }

    private boolean isReady(String workerId) {
        return worker(workerId).map(WorkerRecord::isReady).orElse(false);
    }

    /** Pipelines placed per ready worker (0 for a ready worker without any). */
    private Map<String, Long> load() {
        Map<String, Long> load = new LinkedHashMap<>();
        workers.values().stream().filter(WorkerRecord::isReady).forEach(w -> load.put(w.workerId(), 0L));
        placement.values().forEach(p -> load.computeIfPresent(p.worker(), (k, v) -> v + 1));
        return load;
    }

    /**
     * The workers that host another partition of the unit's pipeline (none for an
     * unpartitioned pipeline).
     */
    private Set<String> siblingHosts(PipelineUnit unit) {
        if (unit.partitionOrNull() == null) {
            return Set.of();
        }
        String prefix = unit.group() + "/" + unit.pipeline() + "/";
        Set<String> hosts = new HashSet<>();
        placement.forEach((key, p) -> {
            if (key.startsWith(prefix) && !key.equals(unit.key())) {
                hosts.add(p.worker());
            }
        });
        return hosts;
    }

    private Optional<String> leastLoadedReadyWorker(String avoid, Set<String> siblings, Predicate<WorkerRecord> only) {
        Map<String, Long> load = load();
        List<Map.Entry<String, Long>> eligible = load.entrySet()
            .stream()
            .filter(e -> only == null || only.test(workers.get(e.getKey())))
            .filter(e -> {
                Registration.Capacity capacity = workers.get(e.getKey()).capacity();
                return capacity == null || e.getValue() < capacity.maxPipelines();
            })
            .sorted(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
            .toList();
        // Spreading partitions comes before avoiding the last failure: a failed worker
        // gets it only when no other
        // worker can, and a sibling's worker only when every other one is taken.
        return eligible.stream()
            .map(Map.Entry::getKey)
            .filter(id -> !id.equals(avoid) && !siblings.contains(id))
            .findFirst()
            .or(() -> eligible.stream().map(Map.Entry::getKey).filter(id -> !siblings.contains(id)).findFirst())
            .or(() -> eligible.stream().map(Map.Entry::getKey).filter(id -> !id.equals(avoid)).findFirst())
            .or(() -> eligible.stream().map(Map.Entry::getKey).findFirst());
    }

    /**
     * A deploy that failed, kept while the pipeline waits for another placement.
     *
     * @param worker the worker it was sent to
     * @param error what the worker answered, or why no answer came
     * @param at when it failed
     */
    public record FailedDeploy(String worker, String error, Instant at) {
    }

}
