package io.varpulis.metrics;

import io.micrometer.core.instrument.Counter;
import io.varpulis.transport.ParkReason;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The meters of one consumer's deliveries, resolved once when its container starts (a
 * lookup per event cost about 1 us, issue 14): {@code varpulis.events.applied} and
 * {@code varpulis.events.apply}, {@code .redelivered}, {@code .retried},
 * {@code .parked{reason}}, {@code .skipped} and {@code .stranded}, tagged with the unit
 * (pipeline, listener, or {@code coordinator:{id}}) and partition, and
 * {@code varpulis.consumer.errors{unit,stage}}: whatever threw while a delivery was
 * handled, by where it threw. Every counter is registered at 0, so that Prometheus'
 * {@code rate} sees the first event of each. A unit that does not count applies
 * (heartbeats, which have meters of their own) counts parks and strandings only.
 */
public final class DeliveryMeters {

    private final SubstrateMetrics metrics;

    private final String unit;

    private final String partition;

    private final SubstrateMetrics.Applies applies;

    private final Counter redelivered;

    private final Counter retried;

    private final Counter stranded;

    private final Counter stalled;

    private final Counter skipped;

    private final Counter applyTimeouts;

    private final Counter stoppedByError;

    private final Map<String, Counter> errors = new ConcurrentHashMap<>();

    private final Map<ParkReason, Counter> parked = new EnumMap<>(ParkReason.class);

    DeliveryMeters(SubstrateMetrics metrics, String unit, String partition, boolean countApplies) {
        this.metrics = metrics;
        this.unit = unit;
        this.partition = partition;
        this.applies = countApplies ? metrics.applies(unit, partition) : null;
        this.redelivered = countApplies ? metrics.redeliveredCounter(unit, partition) : null;
        this.retried = countApplies ? metrics.retriedCounter(unit, partition) : null;
        this.stranded = metrics.registry().counter("varpulis.events.stranded", "unit", unit);
        this.stalled = metrics.registry().counter("varpulis.consumer.stalls", "unit", unit);
        this.skipped = Counter.builder("varpulis.events.skipped")
            .description("Events an error handler chose to skip: acked without being applied")
            .tag("unit", unit)
            .register(metrics.registry());
        this.applyTimeouts = Counter.builder("varpulis.consumer.apply.timeouts")
            .description("Applies that ran past their apply timeout: reported, released for redelivery")
            .tag("unit", unit)
            .register(metrics.registry());
        this.stoppedByError = Counter.builder("varpulis.consumer.stopped")
            .description("Delivery containers stopped by an error (a VirtualMachineError)")
            .tags("unit", unit, "reason", "error")
            .register(metrics.registry());
        for (ParkReason reason : ParkReason.values()) {
            parked.put(reason,
                    metrics.registry().counter("varpulis.events.parked", "unit", unit, "reason", reason.tag()));
        }
    }

    /**
     * @return the unit the meters are tagged with
     */
    public String unit() {
        return unit;
    }

    /**
     * @return the partition tag
     */
    public String partition() {
        return partition;
    }

    /**
     * @return the meters of the event paths these come from
     */
    public SubstrateMetrics metrics() {
        return metrics;
    }

    /**
     * Counts a delivery after the first.
     */
    public void redelivered() {
        if (redelivered != null) {
            redelivered.increment();
        }
    }

    /**
     * Counts a delivery applied and acked.
     * @param nanos from its receipt to its ack, ns
     * @param elementsParked elements of it parked on their own (counted as parked
     * {@code unprocessable})
     */
    public void applied(long nanos, int elementsParked) {
        if (applies != null) {
            applies.applied(nanos);
        }
        if (elementsParked > 0) {
            parked.get(ParkReason.UNPROCESSABLE).increment(elementsParked);
        }
    }

    /**
     * Counts the deliveries of one batch applied and acked together: the applied counter
     * by their number, the apply timer once, for the batch.
     * @param deliveries how many were acked
     * @param nanos from the batch's first receipt to its last ack, ns
     */
    public void appliedBatch(int deliveries, long nanos) {
        if (applies != null) {
            applies.applied(deliveries, nanos);
        }
    }

    /**
     * Counts one more try made because the broker was away (no delivery spent).
     */
    public void retried() {
        if (retried != null) {
            retried.increment();
        }
    }

    /**
     * Counts an event parked (or, on core, logged as lost).
     * @param reason why
     */
    public void parked(ParkReason reason) {
        parked.get(reason).increment();
    }

    /**
     * Counts an event neither applied nor parked that the server will not deliver again
     * (logged at ERROR).
     */
    public void stranded() {
        stranded.increment();
    }

    /**
     * Counts an event an error handler chose to skip: acked without being applied.
     */
    public void skipped() {
        skipped.increment();
    }

    /**
     * Counts an apply that ran past its apply timeout.
     */
    public void applyTimedOut() {
        applyTimeouts.increment();
    }

    /**
     * Counts a container stopped by an error.
     */
    public void stoppedByError() {
        stoppedByError.increment();
    }

    /**
     * Counts a throw while a delivery was handled.
     * @param stage where it threw: {@code converter}, {@code listener},
     * {@code observation}, {@code error_handler} or {@code settler}
     */
    public void error(String stage) {
        errors
            .computeIfAbsent(stage,
                    s -> metrics.registry().counter("varpulis.consumer.errors", "unit", unit, "stage", s))
            .increment();
    }

    /**
     * Counts a stall: the unit's container held deliveries for a whole ack_wait and
     * settled none (logged at WARN).
     */
    public void stalled() {
        stalled.increment();
    }

}
