package io.varpulis.metrics;

import io.varpulis.transport.ParkReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The substrate's Micrometer meters (SPEC section 7b), with tags bounded by the topology
 * (pipeline, unit and edge names, never event ids or payload values):
 * {@code varpulis.events.published{edge}}, {@code varpulis.events.applied{pipeline}},
 * {@code varpulis.events.redelivered{pipeline}},
 * {@code varpulis.events.parked{unit,reason}}, {@code varpulis.events.stranded{unit}},
 * {@code varpulis.consumer.stalls{unit}}, {@code varpulis.events.retried{pipeline}},
 * {@code varpulis.state.fenced{pipeline}}, {@code varpulis.events.apply{pipeline}}
 * (timer), {@code varpulis.heartbeats.applied}, {@code varpulis.heartbeats.unknown},
 * {@code varpulis.heartbeats.stale}. Consumer lag gauges live in
 * {@link ConsumerLagMetrics}.
 */
public class SubstrateMetrics {

    /**
     * The {@code partition} tag of an unpartitioned pipeline's meters (every per-pipeline
     * meter has the tag).
     */
    public static final String UNPARTITIONED = "none";

    /**
     * The {@code partition} tag of a partitioned pipeline's repartitioner (its
     * unpartitioned input subjects).
     */
    public static final String REPARTITION = "repartition";

    /**
     * The {@code reason} tags of {@code varpulis.events.parked}: the death envelope's
     * reasons (delivery's ParkReason).
     */
    public static final List<String> PARK_REASONS = Arrays.stream(ParkReason.values()).map(ParkReason::tag).toList();

    private final MeterRegistry registry;

    // Meters of the per-event paths, looked up once per tag value: registering builds and
    // hashes a meter id, which
    // cost about 1 us per routed event (issue 7's benchmark). Tag values are bounded by
    // the topology.
    private final Map<String, Counter> published = new ConcurrentHashMap<>();

    private final Map<String, Counter> applied = new ConcurrentHashMap<>();

    private final Map<String, Timer> applyTimers = new ConcurrentHashMap<>();

    private final Map<String, Counter> redelivered = new ConcurrentHashMap<>();

    private final Map<String, Counter> retried = new ConcurrentHashMap<>();

    /**
     * @param registry where the meters are registered
     */
    public SubstrateMetrics(MeterRegistry registry) {
        this.registry = registry;
        // From 0, so that the first replayed heartbeats a restarted coordinator discards
        // show as an increase.
        registry.counter("varpulis.heartbeats.stale");
    }

    /**
     * @return meters kept in memory only, for use without Spring or in tests
     */
    public static SubstrateMetrics inMemory() {
        return new SubstrateMetrics(new SimpleMeterRegistry());
    }

    /**
     * Counts a routed event the stream stored: a PubAck that is not a duplicate, on time
     * or after the publish timeout (a late PubAck), so an event stored once is counted
     * once however often its publish was retried.
     * @param edge the route edge, {@code {group}.{from}.{to}}
     */
    public void published(String edge) {
        published.computeIfAbsent(edge, e -> registry.counter("varpulis.events.published", "edge", e)).increment();
    }

    /**
     * Counts an event applied and acked.
     * @param pipeline the pipeline
     * @param partition its partition tag (an index, {@value #UNPARTITIONED} or
     * {@value #REPARTITION})
     * @param duration how long the apply and the confirmation of its outputs took
     */
    public void applied(String pipeline, String partition, Duration duration) {
        applies(pipeline, partition).applied(duration.toNanos());
    }

    /**
     * The meters {@link #applied} counts on, looked up once, for a route ingress to count
     * each event without a lookup (issue 14, item 3).
     * @param pipeline the pipeline
     * @param partition its partition tag
     * @return its {@code varpulis.events.applied} counter and
     * {@code varpulis.events.apply} timer
     */
    public Applies applies(String pipeline, String partition) {
        String key = pipeline + "/" + partition;
        return new Applies(applied.computeIfAbsent(key, p -> {
            registerAtZero(pipeline, partition);
            return registry.counter("varpulis.events.applied", "pipeline", pipeline, "partition", partition);
        }), applyTimers.computeIfAbsent(key,
                p -> Timer.builder("varpulis.events.apply")
                    .description("apply of one event, outputs confirmed")
                    .tag("pipeline", pipeline)
                    .tag("partition", partition)
                    // Buckets for the dashboard's percentiles: an apply is a local call
                    // plus its outputs' PubAcks.
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(30))
                    .register(registry)));
    }

    /**
     * One pipeline partition's apply meters.
     *
     * @param counter {@code varpulis.events.applied}
     * @param timer {@code varpulis.events.apply}
     */
    public record Applies(Counter counter, Timer timer) {

        /**
         * Counts an event applied and acked.
         * @param nanos how long the apply and the confirmation of its outputs took, in ns
         */
        public void applied(long nanos) {
            counter.increment();
            timer.record(nanos, TimeUnit.NANOSECONDS);
        }

        /**
         * Counts the events of one batch applied and acked together, with one record of
         * the apply timer for the batch (issue 42: a batch pays its meters once).
         * @param events how many were applied
         * @param nanos how long the batch's apply and the confirmation of its outputs
         * took, in ns
         */
        public void applied(int events, long nanos) {
            if (events > 0) {
                counter.increment(events);
                timer.record(nanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * Counts a delivery after the first (a redelivery).
     * @param pipeline the pipeline
     * @param partition its partition tag
     */
    public void redelivered(String pipeline, String partition) {
        redeliveredCounter(pipeline, partition).increment();
    }

    /**
     * Registers a pipeline partition's other counters at 0 when it starts: Prometheus'
     * {@code increase} and {@code rate} see no first redelivery, park, stranding or
     * fencing in a counter that appears already at 1, so the chart's alerts on them
     * (helm/varpulis/files/alerts.yaml) would miss it.
     */
    private void registerAtZero(String pipeline, String partition) {
        redeliveredCounter(pipeline, partition);
        registry.counter("varpulis.state.fenced", "pipeline", pipeline, "partition", partition);
        registry.counter("varpulis.events.stranded", "unit", pipeline);
        PARK_REASONS.forEach(reason -> registry.counter("varpulis.events.parked", "unit", pipeline, "reason", reason));
    }

    /**
     * The meters of one consumer's deliveries, resolved once.
     * @param unit the pipeline, the listener, or {@code coordinator:{id}}
     * @param partition its partition tag ({@value #UNPARTITIONED} when it has none)
     * @param countApplies whether it counts applies, redeliveries and retries (heartbeats
     * do not: they have {@code varpulis.heartbeats.*})
     * @return its meters
     */
    public DeliveryMeters deliveries(String unit, String partition, boolean countApplies) {
        return new DeliveryMeters(this, unit, partition, countApplies);
    }

    Counter redeliveredCounter(String pipeline, String partition) {
        return redelivered.computeIfAbsent(pipeline + "/" + partition,
                p -> registry.counter("varpulis.events.redelivered", "pipeline", pipeline, "partition", partition));
    }

    /**
     * Counts one more try of an apply or of its outputs' publish because the broker was
     * unavailable (no responders, PubAck timeout, a state read without a leader): tries
     * the ingress made itself, keeping the delivery in progress, instead of spending a
     * delivery of max_deliver.
     * @param pipeline the pipeline
     * @param partition its partition tag
     */
    public void retried(String pipeline, String partition) {
        retriedCounter(pipeline, partition).increment();
    }

    Counter retriedCounter(String pipeline, String partition) {
        return retried.computeIfAbsent(pipeline + "/" + partition,
                p -> registry.counter("varpulis.events.retried", "pipeline", pipeline, "partition", partition));
    }

    /**
     * Counts a pipeline that stopped on this worker because its state is owned by another
     * writer (a later placement): alert on any increase that is not a planned move.
     * @param pipeline the pipeline
     * @param partition its partition tag
     */
    public void fenced(String pipeline, String partition) {
        registry.counter("varpulis.state.fenced", "pipeline", pipeline, "partition", partition).increment();
    }

    /**
     * Counts an event parked in the DLQ (or, on core, logged as lost).
     * @param unit the pipeline, or {@code coordinator:{id}}
     * @param reason why, the death envelope's {@code reason} ({@code undecodable},
     * {@code unprocessable}, {@code unroutable}, {@code max_deliver})
     */
    public void parked(String unit, String reason) {
        registry.counter("varpulis.events.parked", "unit", unit, "reason", reason).increment();
    }

    /**
     * Counts an event that could not be parked on its last delivery: the server will not
     * deliver it again and it must be recovered by hand from its stream sequence (logged
     * at ERROR). Alert on any increase.
     * @param unit the pipeline, or {@code coordinator:{id}}
     */
    public void stranded(String unit) {
        registry.counter("varpulis.events.stranded", "unit", unit).increment();
    }

    /** Counts a heartbeat the coordinator applied. */
    public void heartbeatApplied() {
        registry.counter("varpulis.heartbeats.applied").increment();
    }

    /**
     * Counts a heartbeat of a worker the coordinator has not registered (or of another
     * cluster), not applied.
     */
    public void heartbeatUnknown() {
        registry.counter("varpulis.heartbeats.unknown").increment();
    }

    /** Counts a replayed heartbeat older than heartbeat-timeout, acked and discarded. */
    public void heartbeatStale() {
        registry.counter("varpulis.heartbeats.stale").increment();
    }

    /**
     * Reads counters, for reports and tests.
     * @param name the meter name
     * @param tags tag key/value pairs, some of the counters' tags
     * @return the sum of the counters with that name and those tags (every reason of
     * {@code varpulis.events.parked} when the reason is not given), 0 when none
     */
    public double count(String name, String... tags) {
        return registry.find(name).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
    }

    /**
     * @return the registry the meters live in
     */
    public MeterRegistry registry() {
        return registry;
    }

}
