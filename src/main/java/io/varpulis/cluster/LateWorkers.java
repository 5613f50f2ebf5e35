package io.varpulis.cluster;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Tells a late worker from a dead one (SPEC section 9: a late heartbeat from a worker that is progressing is not
 * death). A worker silent for longer than heartbeat-timeout is dead, unless the server shows it alive and progressing
 * meanwhile ({@link Evidence}: its durable consumers' ack floors moving, its worker-id lease renewed): then its
 * deadline is extended while the progress goes on, up to {@value #MAX_TIMEOUTS} heartbeat-timeouts of silence. A slow
 * disk on the server that leads the heartbeat stream delays heartbeats, not the worker's work (issue 25, item 3: such
 * a worker's pipelines were moved while it ran them).
 * <p>The evidence is sampled on each health check once a worker has been silent for half the timeout, so that a
 * change can be seen by the time the timeout passes; a worker on time costs nothing. Each extension is logged once
 * per silence and counted ({@code varpulis.cluster.workers.late}). Thread-safe.
 */
public final class LateWorkers implements LivenessVerdict {

    /** The longest silence a progressing worker is allowed, in heartbeat-timeouts: late, but not for ever. */
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
         * @return a fingerprint of what the server shows the worker doing (it changes when the worker progresses),
         * or empty when the server shows nothing or did not answer
         */
        Optional<String> of(String workerId);

        /**
         * @return no evidence: silence past the timeout is death (core, where the server keeps nothing)
         */
        static Evidence none() {
            return workerId -> Optional.empty();
        }
    }

    /**
     * @param timeout  heartbeat-timeout
     * @param evidence what the server shows of a worker
     * @param nanoTime the coordinator's monotonic clock
     * @param registry gets {@code varpulis.cluster.workers.late}
     */
    public LateWorkers(Duration timeout, Evidence evidence, LongSupplier nanoTime, MeterRegistry registry) {
        this.timeout = timeout;
        this.evidence = evidence;
        this.nanoTime = nanoTime;
        this.extended = Counter.builder("varpulis.cluster.workers.late")
                .description("workers silent past heartbeat-timeout kept ready because the server showed them "
                        + "progressing").register(registry);
    }

    @Override
    public boolean alive(String workerId, Duration silence) {
        if (silence.compareTo(timeout.dividedBy(2)) <= 0) {
            samples.remove(workerId);
            return true;
        }
        long now = nanoTime.getAsLong();
        Optional<String> seen = evidence.of(workerId);
        Sample sample = samples.computeIfAbsent(workerId, id -> new Sample(seen.orElse(null)));
        if (seen.isPresent() && !seen.get().equals(sample.fingerprint)) {
            sample.fingerprint = seen.get();
            sample.changedAt = now;
        }
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
            log.warn("worker {} sent no heartbeat for {} ms (heartbeat-timeout {} ms) but the server shows it "
                            + "progressing ({}): late, not dead; kept ready while it progresses, for at most {} ms of "
                            + "silence. Check the heartbeat stream leader's disk and the worker's connection",
                    workerId, silence.toMillis(), timeout.toMillis(), sample.fingerprint,
                    timeout.multipliedBy(MAX_TIMEOUTS).toMillis());
        }
        return true;
    }

    /** What the server showed of one silent worker: its last fingerprint and when it last changed. */
    private static final class Sample {
        private String fingerprint;
        private Long changedAt;
        private boolean extended;

        private Sample(String fingerprint) {
            this.fingerprint = fingerprint;
        }
    }
}
