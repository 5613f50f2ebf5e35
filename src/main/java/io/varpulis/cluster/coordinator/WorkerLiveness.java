package io.varpulis.cluster.coordinator;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * When each worker last showed a sign of life, and since when it is unhealthy, on the
 * coordinator's monotonic clock (SPEC section 9: liveness never depends on two hosts'
 * clocks agreeing, nor on this host's wall clock stepping). Thread-safe.
 */
final class WorkerLiveness {

    private final LongSupplier nanoTime;

    /** worker -> its last sign of life. */
    private final Map<String, Long> lastSign = new ConcurrentHashMap<>();

    /** worker -> when it was found unhealthy. */
    private final Map<String, Long> unhealthySince = new ConcurrentHashMap<>();

    /**
     * @param nanoTime the monotonic clock, in nanoseconds
     */
    WorkerLiveness(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /**
     * @return the monotonic clock now, in nanoseconds
     */
    long now() {
        return nanoTime.getAsLong();
    }

    /**
     * @param workerId the worker
     * @param age how long ago it was alive (a heartbeat's age on the server's clock; zero
     * for a registration)
     */
    void signOfLife(String workerId, Duration age) {
        lastSign.merge(workerId, now() - age.toNanos(), (a, b) -> a - b > 0 ? a : b);
        unhealthySince.remove(workerId);
    }

    /**
     * @param workerId the worker
     * @param livenessFromNanos no silence starts before it (when the coordinator regained
     * NATS)
     * @return how long the worker has been silent
     */
    Duration silence(String workerId, long livenessFromNanos) {
        long sign = lastSign.getOrDefault(workerId, livenessFromNanos);
        long since = sign - livenessFromNanos > 0 ? sign : livenessFromNanos;
        return Duration.ofNanos(Math.max(0, now() - since));
    }

    /**
     * @param workerId a worker found unhealthy now
     */
    void unhealthy(String workerId) {
        unhealthySince.put(workerId, now());
    }

    /**
     * @param workerId a worker
     * @param retention dead-worker-retention
     * @return whether it has been unhealthy for longer than the retention
     */
    boolean unhealthyLongerThan(String workerId, Duration retention) {
        Long since = unhealthySince.get(workerId);
        return since != null && now() - since > retention.toNanos();
    }

    /**
     * @param workerIds workers forgotten
     */
    void forget(Collection<String> workerIds) {
        lastSign.keySet().removeAll(workerIds);
        unhealthySince.keySet().removeAll(workerIds);
    }

}
