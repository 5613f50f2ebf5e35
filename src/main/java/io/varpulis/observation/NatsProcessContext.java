package io.varpulis.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.ReceiverContext;
import io.nats.client.impl.Headers;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.transport.Delivery;

import java.util.Map;

/**
 * The context of one delivery processed: its carrier is the delivery, whose NATS headers
 * Spring Boot's configured propagation reads the publisher's trace context from, so the
 * process span is the child of the send span. It ends when the delivery is settled, with
 * the outcome set here.
 * <p>
 * Whether the incoming trace is sampled is read from the headers when the context is made
 * ({@link TraceHeaders#sampled}): an unsampled delivery gets no span, only its timer,
 * without an Observation ({@link UntracedObservations}), and what it publishes carries
 * its trace headers through unchanged ({@link #carried()}). One that carries none is
 * decided by the tracer before its observation
 * ({@link NatsReceiverTracingObservationHandler}).
 */
public class NatsProcessContext extends ReceiverContext<Delivery> {

    private final ConsumerDeclaration consumer;

    private final Boolean sampled;

    private final boolean untraced;

    private volatile boolean sampledOut;

    private Object span;

    private final HeldKeyValues lowCardinality = new HeldKeyValues();

    private volatile String outcome = "left";

    private volatile String parkReason = "none";

    private long startedNanos;

    private volatile boolean running;

    /**
     * @param consumer the durable consumer it came through
     * @param delivery the delivery
     */
    public NatsProcessContext(ConsumerDeclaration consumer, Delivery delivery) {
        super(NatsProcessContext::header);
        this.consumer = consumer;
        this.sampled = TraceHeaders.sampled(delivery.headers());
        this.untraced = sampled == null && TraceHeaders.absent(delivery.headers());
        setCarrier(delivery);
        setRemoteServiceName("nats");
    }

    private static String header(Delivery delivery, String key) {
        Headers headers = delivery.headers();
        return headers == null ? null : headers.getFirst(key);
    }

    /**
     * @return {@code true} when the delivery's headers say its trace is not sampled, or,
     * with none, the tracer sampled out the trace it would start: it gets no span
     */
    public boolean unsampled() {
        return sampledOut || Boolean.FALSE.equals(sampled);
    }

    /**
     * @return {@code true} when the delivery carries no trace headers at all: whether it
     * is sampled is the tracer's to decide, as for a new trace (a B3 context that defers
     * the decision is not untraced: the tracer continues it)
     */
    public boolean untraced() {
        return untraced;
    }

    /**
     * Marks the delivery as one that no span records: it carried no trace and the tracer
     * sampled out the one it would start.
     */
    void sampledOut() {
        sampledOut = true;
    }

    /**
     * Keeps the span the tracer started for this delivery, before its observation starts,
     * for the tracing handler to use ({@link NatsReceiverTracingObservationHandler}).
     * @param decided the tracer's span (Micrometer Tracing's {@code Span}, typed loosely
     * so that this class loads without Micrometer Tracing)
     */
    void decided(Object decided) {
        span = decided;
    }

    /**
     * @return the span the tracer started for it before its observation, or {@code null}
     */
    Object decided() {
        return span;
    }

    /**
     * @return the trace headers the delivery came with, for what it publishes while it is
     * not sampled
     */
    public Map<String, String> carried() {
        return TraceHeaders.of(getCarrier().headers());
    }

    /**
     * @return when the observation started ({@link System#nanoTime()}), for its timer
     */
    long startedNanos() {
        return startedNanos;
    }

    void started(long nanos) {
        startedNanos = nanos;
    }

    /** Notes that the observation has started. */
    void running(boolean value) {
        running = value;
    }

    /**
     * @return whether the observation has started: its convention's key values are asked
     * for again when it stops, and only then used, so they are not built before (issue
     * 32)
     */
    public boolean running() {
        return running;
    }

    /**
     * @return the durable consumer
     */
    public ConsumerDeclaration consumer() {
        return consumer;
    }

    /**
     * @return the delivery
     */
    public Delivery delivery() {
        return getCarrier();
    }

    /**
     * @return {@code acked}, {@code nak}, {@code parked}, or {@code left} while unsettled
     * (and when given up)
     */
    public String outcome() {
        return outcome;
    }

    /**
     * @return why it was parked, or {@code none}
     */
    public String parkReason() {
        return parkReason;
    }

    void settled(String how) {
        if (!"parked".equals(outcome)) {
            outcome = how;
        }
    }

    void parked(String reason) {
        outcome = "parked";
        parkReason = reason == null ? "unknown" : reason;
    }

    // Key values held as the convention returned them (HeldKeyValues): no copy into
    // Micrometer's map, no sort per read.

    @Override
    public Observation.Context addLowCardinalityKeyValues(KeyValues keyValues) {
        return lowCardinality.hold(keyValues) ? this : super.addLowCardinalityKeyValues(keyValues);
    }

    @Override
    public Observation.Context addLowCardinalityKeyValue(KeyValue keyValue) {
        lowCardinality.move(super::addLowCardinalityKeyValues);
        return super.addLowCardinalityKeyValue(keyValue);
    }

    @Override
    public Observation.Context removeLowCardinalityKeyValue(String key) {
        lowCardinality.move(super::addLowCardinalityKeyValues);
        return super.removeLowCardinalityKeyValue(key);
    }

    @Override
    public Observation.Context removeLowCardinalityKeyValues(String... keys) {
        lowCardinality.move(super::addLowCardinalityKeyValues);
        return super.removeLowCardinalityKeyValues(keys);
    }

    @Override
    public KeyValues getLowCardinalityKeyValues() {
        return lowCardinality.get(super::getLowCardinalityKeyValues);
    }

    @Override
    public KeyValue getLowCardinalityKeyValue(String key) {
        return lowCardinality.get(key, super::getLowCardinalityKeyValue);
    }

    @Override
    public KeyValues getAllKeyValues() {
        return unsampled() ? getLowCardinalityKeyValues()
                : getLowCardinalityKeyValues().and(getHighCardinalityKeyValues());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues() {
        return unsampled() ? KeyValues.empty() : super.getHighCardinalityKeyValues();
    }

}
