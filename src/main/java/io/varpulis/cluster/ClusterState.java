package io.varpulis.cluster;

import io.varpulis.pipeline.PipelineGroupSpec;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinator's view of the cluster: registered workers, their health, the pipeline groups and where each
 * pipeline is placed. Pure bookkeeping, no I/O; {@link CoordinatorNode} acts on it. Thread-safe.
 */
public class ClusterState {

    private final Clock clock;
    private final Map<String, WorkerRecord> workers = new ConcurrentHashMap<>();
    private final Map<String, PipelineGroupSpec> groups = new LinkedHashMap<>();
    /** group/pipeline -> worker id. */
    private final Map<String, String> placement = new LinkedHashMap<>();

    /**
     * @param clock the time of registrations and heartbeats
     */
    public ClusterState(Clock clock) {
        this.clock = clock;
    }

    /**
     * Records a registration; a known worker keeps its placement.
     *
     * @param request the registration
     * @return the worker's record
     */
    public WorkerRecord register(Registration.Request request) {
        Instant now = clock.instant();
        return workers.compute(request.workerId(), (id, old) -> new WorkerRecord(id, request.address(),
                WorkerRecord.READY, request.capacity(), now, old == null ? now : old.lastHeartbeat(),
                old == null ? null : old.heartbeat()));
    }

    /**
     * Records a fresh heartbeat. The worker's last sign of life becomes the time the heartbeat was sent, not the time
     * it was applied: a heartbeat replayed after a coordinator restart does not make a dead worker look alive longer.
     *
     * @param workerId  the worker
     * @param heartbeat its heartbeat
     * @param sentAt    when it was stored
     * @return the updated record, or empty when the worker is unknown (it must register again)
     */
    public Optional<WorkerRecord> heartbeat(String workerId, WorkerHeartbeat heartbeat, Instant sentAt) {
        return Optional.ofNullable(workers.computeIfPresent(workerId, (id, old) -> {
            Instant last = old.lastHeartbeat() == null || sentAt.isAfter(old.lastHeartbeat()) ? sentAt
                    : old.lastHeartbeat();
            return new WorkerRecord(id, old.address(), WorkerRecord.READY, old.capacity(), old.registeredAt(), last,
                    heartbeat);
        }));
    }

    /**
     * Marks workers unhealthy whose last sign of life (heartbeat or registration) is older than the timeout. A
     * registration counts: a worker that registers again after being unhealthy keeps its old last heartbeat until
     * its next one, and must not be expired again at once.
     *
     * @param timeout heartbeat-timeout
     * @return the workers that became unhealthy now
     */
    public List<String> expire(Duration timeout) {
        Instant limit = clock.instant().minus(timeout);
        List<String> expired = new ArrayList<>();
        workers.replaceAll((id, w) -> {
            Instant lastSign = w.lastHeartbeat() == null || w.registeredAt().isAfter(w.lastHeartbeat())
                    ? w.registeredAt() : w.lastHeartbeat();
            if (w.isReady() && lastSign.isBefore(limit)) {
                expired.add(id);
                return new WorkerRecord(id, w.address(), WorkerRecord.UNHEALTHY, w.capacity(), w.registeredAt(),
                        w.lastHeartbeat(), w.heartbeat());
            }
            return w;
        });
        return expired;
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
     * Adds a group; its pipelines are unplaced until {@link #place} assigns them.
     *
     * @param group the validated group
     * @return {@code false} when a group of that name exists
     */
    public synchronized boolean addGroup(PipelineGroupSpec group) {
        return groups.putIfAbsent(group.name(), group) == null;
    }

    /**
     * Removes a group and its placement.
     *
     * @param name the group name
     * @return the placement it had (group/pipeline -> worker), empty when the group was unknown
     */
    public synchronized Optional<Map<String, String>> removeGroup(String name) {
        if (groups.remove(name) == null) {
            return Optional.empty();
        }
        Map<String, String> removed = new LinkedHashMap<>();
        placement.entrySet().removeIf(e -> {
            if (e.getKey().startsWith(name + "/")) {
                removed.put(e.getKey(), e.getValue());
                return true;
            }
            return false;
        });
        return Optional.of(removed);
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
     * @return where each pipeline runs, {@code group/pipeline -> worker id}
     */
    public synchronized Map<String, String> placement() {
        return new LinkedHashMap<>(placement);
    }

    /**
     * Places every pipeline that has no worker, or whose worker is not ready, on the ready worker with the fewest
     * pipelines (ties by id).
     *
     * @return the new assignments, {@code group/pipeline -> worker id}; unplaceable pipelines (no ready worker) stay
     * out of it and are tried again next time
     */
    public synchronized Map<String, String> place() {
        return place(groups.values());
    }

    /**
     * Places the unplaced pipelines of one group, as {@link #place()} does.
     *
     * @param group the group name
     * @return the new assignments
     */
    public synchronized Map<String, String> place(String group) {
        PipelineGroupSpec spec = groups.get(group);
        return spec == null ? Map.of() : place(List.of(spec));
    }

    /**
     * What a worker's report of a running pipeline means for the placement.
     */
    public enum Report {
        /** The pipeline is placed on that worker. */
        OWNED,
        /** It was unplaced, or placed on a worker that is not ready: it is now placed on the reporting worker. */
        ADOPTED,
        /** It is placed on another ready worker: the reporting worker must stop it. */
        ELSEWHERE,
        /** Its group is unknown to this coordinator: left alone. */
        UNKNOWN_GROUP
    }

    /**
     * Reconciles a worker's report that it runs a pipeline. A restarted coordinator adopts what the workers run
     * instead of moving it.
     *
     * @param key      {@code group/pipeline}
     * @param workerId the reporting worker
     * @return what the report means
     */
    public synchronized Report reportRunning(String key, String workerId) {
        String[] parts = key.split("/", 2);
        PipelineGroupSpec group = groups.get(parts[0]);
        if (group == null || group.pipeline(parts[1]).isEmpty()) {
            return Report.UNKNOWN_GROUP;
        }
        String owner = placement.get(key);
        if (workerId.equals(owner)) {
            return Report.OWNED;
        }
        if (owner == null || !worker(owner).map(WorkerRecord::isReady).orElse(false)) {
            placement.put(key, workerId);
            return Report.ADOPTED;
        }
        return Report.ELSEWHERE;
    }

    private Map<String, String> place(java.util.Collection<PipelineGroupSpec> which) {
        Map<String, String> moves = new LinkedHashMap<>();
        for (PipelineGroupSpec group : which) {
            for (PipelineGroupSpec.PipelineSpec pipeline : group.pipelines()) {
                String key = group.name() + "/" + pipeline.name();
                String current = placement.get(key);
                if (current != null && worker(current).map(WorkerRecord::isReady).orElse(false)) {
                    continue;
                }
                Optional<String> target = leastLoadedReadyWorker();
                if (target.isEmpty()) {
                    continue;
                }
                placement.put(key, target.get());
                moves.put(key, target.get());
            }
        }
        return moves;
    }

    /**
     * @param workerId a worker
     * @return the pipelines placed on it, as {@code group/pipeline}
     */
    public synchronized List<String> pipelinesOf(String workerId) {
        return placement.entrySet().stream().filter(e -> e.getValue().equals(workerId)).map(Map.Entry::getKey)
                .toList();
    }

    private Optional<String> leastLoadedReadyWorker() {
        Map<String, Long> load = new LinkedHashMap<>();
        workers.values().stream().filter(WorkerRecord::isReady).forEach(w -> load.put(w.workerId(), 0L));
        placement.values().forEach(id -> load.computeIfPresent(id, (k, v) -> v + 1));
        return load.entrySet().stream()
                .filter(e -> {
                    Registration.Capacity capacity = workers.get(e.getKey()).capacity();
                    return capacity == null || e.getValue() < capacity.maxPipelines();
                })
                .min(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey);
    }
}
