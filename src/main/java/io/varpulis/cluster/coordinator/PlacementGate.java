package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.cluster.protocol.WorkerCapabilities;
import io.varpulis.pipeline.PipelineGroupSpec;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinator's {@link PlacementFilter} (SPEC section 17): a pipeline goes only to a
 * worker that said it can run it ({@link WorkerCapabilities}), and not to a worker that
 * keeps refusing deploys until its backoff is over (the coordinator counts refusals only,
 * not deploys left unanswered: those are a NATS outage or a dead worker).
 * <p>
 * Backoff: after the n-th deploy in a row that failed on a worker, no pipeline is placed
 * there for {@code base * 2^(n-1)}, at most {@link #MAX_BACKOFF}; a deploy that succeeds
 * there ends it. Without it a worker that refuses every deploy gets one every placement
 * round, and a healthy pipeline moves back and forth (issue 26). Shown in the topology
 * ({@link #view()}), counted by {@code varpulis.placement.backoffs{worker}} and gauged by
 * {@code varpulis.placement.workers.backed.off}. Thread-safe.
 */
public class PlacementGate implements PlacementFilter {

    /**
     * The longest backoff: a worker that failed for good is still tried every five
     * minutes, so one that was fixed (a processor type registered, a restart) comes back
     * without an operator.
     */
    public static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

    private final Clock clock;

    private final Duration base;

    private final MeterRegistry registry;

    /**
     * What each registered worker can run; {@link Optional#empty()} for a worker that
     * said nothing.
     */
    private final Map<String, Optional<WorkerCapabilities>> capabilities = new ConcurrentHashMap<>();

    private final Map<String, Backoff> backoffs = new ConcurrentHashMap<>();

    /**
     * @param clock measures backoffs
     * @param base the first backoff (the heartbeat interval: one placement round)
     * @param registry gets the backoff counter and gauge
     */
    public PlacementGate(Clock clock, Duration base, MeterRegistry registry) {
        this.clock = clock;
        this.base = base;
        this.registry = registry;
        Gauge.builder("varpulis.placement.workers.backed.off", this, gate -> gate.backedOff().size())
            .description("workers no pipeline is placed on now because their deploys failed")
            .register(registry);
    }

    /**
     * Records what a registering worker can run
     * ({@link WorkerCapabilities#of(Registration.Request)}).
     * @param request its registration
     */
    public void registered(Registration.Request request) {
        capabilities.put(request.workerId(), Optional.ofNullable(WorkerCapabilities.of(request)));
    }

    /**
     * @param workerId a worker the coordinator forgot
     */
    public void forget(String workerId) {
        capabilities.remove(workerId);
        backoffs.remove(workerId);
    }

    @Override
    public boolean allows(String workerId, PipelineGroupSpec.PipelineSpec pipeline) {
        return cannotRun(workerId, pipeline).isEmpty() && backoff(workerId).isEmpty();
    }

    /**
     * @param workerId a worker
     * @param pipeline a pipeline
     * @return why the worker can never run the pipeline as it is (capabilities), empty
     * when it can
     */
    public Optional<String> cannotRun(String workerId, PipelineGroupSpec.PipelineSpec pipeline) {
        Optional<WorkerCapabilities> said = capabilities.get(workerId);
        if (said == null) {
            return Optional.of("it has not registered with this coordinator");
        }
        return WorkerCapabilities.cannotRun(said.orElse(null), pipeline);
    }

    /**
     * Records a deploy a worker refused: its backoff doubles.
     * @param workerId the worker
     * @param error what it answered, or why no answer came
     * @return the backoff it is in now
     */
    public Backoff deployFailed(String workerId, String error) {
        Instant now = clock.instant();
        Backoff next = backoffs.compute(workerId, (id, old) -> {
            int failures = old == null ? 1 : old.failures() + 1;
            Duration wait = base.multipliedBy(1L << Math.min(failures - 1, 20));
            return new Backoff(failures, now.plus(wait.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : wait), error);
        });
        registry.counter("varpulis.placement.backoffs", "worker", workerId).increment();
        return next;
    }

    /**
     * Records a deploy a worker confirmed: its backoff ends.
     * @param workerId the worker
     */
    public void deployed(String workerId) {
        backoffs.remove(workerId);
    }

    /**
     * @param workerId a worker
     * @return its backoff while it lasts
     */
    public Optional<Backoff> backoff(String workerId) {
        Backoff b = backoffs.get(workerId);
        return b != null && b.until().isAfter(clock.instant()) ? Optional.of(b) : Optional.empty();
    }

    private Map<String, Backoff> backedOff() {
        Map<String, Backoff> now = new TreeMap<>();
        backoffs.keySet().forEach(id -> backoff(id).ifPresent(b -> now.put(id, b)));
        return now;
    }

    /**
     * @return for the topology, by worker: {@code {"capabilities": {...} or null,
     * "backoff": {"failures", "until", "last_error"}}} (the backoff only while it lasts)
     */
    public Map<String, Map<String, Object>> view() {
        Map<String, Map<String, Object>> view = new TreeMap<>();
        capabilities.forEach((id, said) -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("capabilities", said.orElse(null));
            backoff(id).ifPresent(b -> entry.put("backoff", b));
            view.put(id, entry);
        });
        return view;
    }

    /**
     * A worker's deploy backoff.
     *
     * @param failures deploys in a row that failed there
     * @param until when it may be chosen again
     * @param lastError the last failure
     */
    public record Backoff(@JsonProperty("failures") int failures, @JsonProperty("until") Instant until,
            @JsonProperty("last_error") String lastError) {
    }

}
