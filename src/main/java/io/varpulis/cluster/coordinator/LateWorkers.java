package io.varpulis.cluster.coordinator;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Tells a late worker from a dead one (SPEC section 9: a late heartbeat from a worker
 * that is progressing is not death). A worker silent for longer than heartbeat-timeout is
 * dead, unless the server shows it alive and progressing meanwhile ({@link Evidence}: its
 * durable consumers' ack floors moving, its worker-id lease renewed): then its deadline
 * is extended while the progress goes on, up to {@value #MAX_TIMEOUTS} heartbeat-timeouts
 * of silence. A slow disk on the server that leads the heartbeat stream delays
 * heartbeats, not the worker's work (issue 25, item 3: such a worker's pipelines were
 * moved while it ran them).
 * <p>
 * The evidence is sampled on each health check once a worker has been silent for half the
 * timeout, so that a change can be seen by the time the timeout passes; a worker on time
 * costs nothing. Each extension is logged once per silence and counted
 * ({@code varpulis.cluster.workers.late}). Progress is a counter that went up between two
 * samples, compared part by part; a part the server did not answer (a read timed out on a
 * slow or electing server) is left out of that comparison, so a flaky read never counts
 * as progress. Thread-safe.
 */
public final class LateWorkers implements LivenessVerdict {

    /**
     * The longest silence a progressing worker is allowed, in heartbeat-timeouts: late,
     * but not for ever.
     */
    public static final int MAX_TIMEOUTS = 3;

    private static final Logger log = LoggerFactory.getLogger(LateWorkers.class);

    private final Duration timeout;

    private final Evidence evidence;

    private final LongSupplier nanoTime;

    private final Counter extended;

    private final Map<String, Sample> samples = new ConcurrentHashMap<>();

    /**
     * What the server shows of a worker's activity, independent of its heartbeats.
     */
    @FunctionalInterface
    public interface Evidence {

        /**
         * @param workerId a worker
         * @return what the server shows the worker doing, as counters that only the
         * worker's own activity moves up (such as {@code "lease revision" -> 42}); a
         * counter the server did not answer is absent, and the map is empty when the
         * server shows nothing or did not answer
         */
        Map<String, Long> of(String workerId);

        /**
         * A health check starts asking about the silent workers, each once (an evidence
         * may bound its reads).
         */
        default void beginRound() {
        }

        /**
         * @return no evidence: silence past the timeout is death (core, where the server
         * keeps nothing)
         */
        static Evidence none() {
            return workerId -> Map.of();
        }

    }

    /**
     * @param timeout heartbeat-timeout
     * @param evidence what the server shows of a worker
     * @param nanoTime the coordinator's monotonic clock
     * @param registry gets {@code varpulis.cluster.workers.late}
     */
    public LateWorkers(Duration timeout, Evidence evidence, LongSupplier nanoTime, MeterRegistry registry) {
        this.timeout = timeout;
        this.evidence = evidence;
        this.nanoTime = nanoTime;
        this.extended = Counter.builder("varpulis.cluster.workers.late")
            .description(
                    "workers silent past heartbeat-timeout kept ready because the server showed them " + "progressing")
            .register(registry);
    }

    @Override
    public void beginRound() {
        evidence.beginRound();
    }

    @Override
    public boolean alive(String workerId, Duration silence) {
        if (silence.compareTo(timeout.dividedBy(2)) <= 0) {
            samples.remove(workerId);
            return true;
        }
        long now = nanoTime.getAsLong();
        Map<String, Long> seen = evidence.of(workerId);
        Sample sample = samples.computeIfAbsent(workerId, id -> new Sample());
        if (sample.wentUp(seen)) {
            sample.changedAt = now;
        }
        sample.counters.putAll(seen);
        if (silence.compareTo(timeout) <= 0) {
            return true;
        }
        boolean progressing = sample.changedAt != null && now - sample.changedAt <= timeout.toNanos()
                && silence.compareTo(timeout.multipliedBy(MAX_TIMEOUTS)) <= 0;
        if (!progressing) {
            samples.remove(workerId);
            return false;
        }
        if (!sample.extended) {
            sample.extended = true;
            extended.increment();
            log.warn(
                    "worker {} sent no heartbeat for {} ms (heartbeat-timeout {} ms) but the server shows it "
                            + "progressing ({}): late, not dead; kept ready while it progresses, for at most {} ms of "
                            + "silence. Check the heartbeat stream leader's disk and the worker's connection",
                    workerId, silence.toMillis(), timeout.toMillis(), sample.counters,
                    timeout.multipliedBy(MAX_TIMEOUTS).toMillis());
        }
        return true;
    }

    /**
     * What the server showed of one silent worker: each counter's last value and when one
     * last went up.
     */
    private static final class Sample {

        private final Map<String, Long> counters = new HashMap<>();

        private Long changedAt;

        private boolean extended;

        /** Whether a counter present in both this sample and the new one went up. */
        private boolean wentUp(Map<String, Long> seen) {
            return seen.entrySet().stream().anyMatch(part -> {
                Long before = counters.get(part.getKey());
                return before != null && part.getValue() > before;
            });
        }

    }

}
