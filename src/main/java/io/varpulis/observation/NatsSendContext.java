package io.varpulis.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.SenderContext;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The context of one publish: its carrier is the header map of the outbound message, into
 * which Spring Boot's configured propagation (W3C
 * {@code traceparent}/{@code tracestate}/{@code baggage}, or B3) writes through the
 * tracing bridge. A publish whose trace is known not to be sampled (made while processing
 * an unsampled delivery, or a root the tracer sampled out) is timed without an
 * Observation ({@link UntracedObservations}): the delivery's trace headers, or the
 * sampled-out root's, are written on it and no span is made.
 */
public class NatsSendContext extends SenderContext<Map<String, String>> {

    private final String subject;

    private final String messageId;

    private final String parkedTraceId;

    private final boolean propagate;

    private final HeldKeyValues lowCardinality = new HeldKeyValues();

    private Map<String, String> carried;

    private boolean untraced;

    private Object span;

    private volatile boolean running;

    private long startedNanos;

    /**
     * @param subject the subject published on
     * @param messageId its {@code Nats-Msg-Id}, or {@code null}
     * @param parkedTraceId for a replay of a parked event, the trace id of the delivery
     * that parked it, else {@code null}
     * @param propagate {@code false} to write no trace header (a message already at the
     * server's max_payload)
     */
    public NatsSendContext(String subject, String messageId, String parkedTraceId, boolean propagate) {
        super(propagate ? Map::put : (carrier, key, value) -> {
        });
        this.propagate = propagate;
        this.subject = subject;
        this.messageId = messageId;
        this.parkedTraceId = parkedTraceId;
        setRemoteServiceName("nats");
    }

    /**
     * @return the header map the propagation writes into, made when first asked for (an
     * untraced publish carries its delivery's trace headers instead, and needs none of
     * its own)
     */
    @Override
    public Map<String, String> getCarrier() {
        Map<String, String> carrier = super.getCarrier();
        if (carrier == null) {
            carrier = new LinkedHashMap<>();
            setCarrier(carrier);
        }
        return carrier;
    }

    /**
     * @return the subject published on
     */
    public String subject() {
        return subject;
    }

    /**
     * @return the {@code Nats-Msg-Id}, or {@code null}
     */
    public String messageId() {
        return messageId;
    }

    /**
     * @return the trace id of the delivery that parked a replayed event, or {@code null}
     */
    public String parkedTraceId() {
        return parkedTraceId;
    }

    /**
     * @return the trace headers the propagation wrote (empty when observation has no
     * tracer or does not propagate)
     */
    public Map<String, String> traceHeaders() {
        Map<String, String> carrier = super.getCarrier();
        return carrier == null ? Map.of() : carrier;
    }

    /**
     * Marks the publish as made while processing an unsampled delivery, whose trace
     * headers it carries through: they are written on it, unless it is too close to
     * max_payload for any. The delivery's map is used as it is (no copy per publish): no
     * propagation writes into an untraced publish's carrier.
     * @param headers the delivery's trace headers, never changed
     */
    void carry(Map<String, String> headers) {
        carried = headers;
        untraced = true;
        if (propagate) {
            setCarrier(headers);
        }
    }

    /**
     * @return {@code true} when it is published while processing an unsampled delivery,
     * whose trace headers it carries
     */
    public boolean unsampled() {
        return carried != null;
    }

    /**
     * Marks the publish as one that no span records: the tracer sampled out its trace
     * (its headers are written).
     */
    void sampledOut() {
        untraced = true;
    }

    /**
     * Keeps the span the tracer started for this publish, before its observation starts,
     * for the tracing handler to use ({@link NatsSenderTracingObservationHandler}).
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
     * Notes whether it is being timed: its convention's key values are asked for from
     * then on.
     */
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
     * @return {@code true} when no span records it: an unsampled delivery's output, or a
     * root the tracer sampled out (its span tags are not built)
     */
    public boolean untraced() {
        return untraced;
    }

    long startedNanos() {
        return startedNanos;
    }

    void started(long nanos) {
        startedNanos = nanos;
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
        return untraced ? getLowCardinalityKeyValues()
                : getLowCardinalityKeyValues().and(getHighCardinalityKeyValues());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues() {
        return untraced ? KeyValues.empty() : super.getHighCardinalityKeyValues();
    }

}
