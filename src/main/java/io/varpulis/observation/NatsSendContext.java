package io.varpulis.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.SenderContext;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The context of one publish: its carrier is the header map of the outbound message, into which Spring Boot's
 * configured propagation (W3C {@code traceparent}/{@code tracestate}/{@code baggage}, or B3) writes through the
 * tracing bridge when the observation starts. A publish made while processing an unsampled delivery is unsampled too:
 * it gets no span, and the delivery's trace headers are written on it unchanged ({@link UnsampledTracingHandler}).
 */
public class NatsSendContext extends SenderContext<Map<String, String>> {

    private final String subject;
    private final String messageId;
    private final String parkedTraceId;
    private final boolean propagate;
    private final HeldKeyValues lowCardinality = new HeldKeyValues();
    private volatile Object attachedKey;
    private Object attachedValue;
    private Map<String, String> carried;
    private boolean sampledOut;
    private volatile boolean running;
    private long startedNanos;

    /**
     * @param subject       the subject published on
     * @param messageId     its {@code Nats-Msg-Id}, or {@code null}
     * @param parkedTraceId for a replay of a parked event, the trace id of the delivery that parked it, else
     *                      {@code null}
     * @param propagate     {@code false} to write no trace header (a message already at the server's max_payload)
     */
    public NatsSendContext(String subject, String messageId, String parkedTraceId, boolean propagate) {
        super(propagate ? Map::put : (carrier, key, value) -> { });
        this.propagate = propagate;
        this.subject = subject;
        this.messageId = messageId;
        this.parkedTraceId = parkedTraceId;
        setCarrier(new LinkedHashMap<>());
        setRemoteServiceName("nats");
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
     * @return the trace headers the propagation wrote (empty when observation has no tracer or does not propagate)
     */
    public Map<String, String> traceHeaders() {
        return getCarrier();
    }

    /**
     * Marks the publish as made while processing an unsampled delivery, whose trace headers it carries through.
     *
     * @param headers the delivery's trace headers
     */
    void carry(Map<String, String> headers) {
        this.carried = headers;
    }

    /**
     * @return {@code true} when it is published while processing an unsampled delivery: no span
     */
    public boolean unsampled() {
        return carried != null;
    }

    /**
     * Notes, once the observation started, whether the tracer sampled it: a publish outside any delivery (a root)
     * whose trace the tracer sampled out gets no span tags.
     */
    void started() {
        sampledOut = carried == null && Boolean.FALSE.equals(TraceHeaders.sampled(getCarrier()));
        running = true;
    }

    /**
     * @return whether the observation has started: its convention's key values are asked for again when it stops,
     * and only then used, so they are not built before (issue 32)
     */
    public boolean running() {
        return running;
    }

    /**
     * @return {@code true} when no sampled span records it: an unsampled delivery's output, or a root the tracer
     * sampled out (its span tags are not built)
     */
    public boolean untraced() {
        return carried != null || sampledOut;
    }

    /**
     * Writes the unsampled delivery's trace headers on the message, unless it is too close to max_payload for any.
     */
    void writeCarried() {
        if (carried != null && propagate) {
            getCarrier().putAll(carried);
        }
    }

    long startedNanos() {
        return startedNanos;
    }

    void started(long nanos) {
        startedNanos = nanos;
    }

    // Key values held as the convention returned them (HeldKeyValues): no copy into Micrometer's map, no sort per read.

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
        return untracedTags() ? getLowCardinalityKeyValues()
                : getLowCardinalityKeyValues().and(getHighCardinalityKeyValues());
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T get(Object key) {
        return key == attachedKey ? (T) attachedValue : super.get(key);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getRequired(Object key) {
        return key == attachedKey ? (T) attachedValue : super.getRequired(key);
    }

    /**
     * Attaches a value without Micrometer's map (an unsampled observation's empty tracing context: one per message
     * in the map was a tenth of what observation allocated, issue 32).
     *
     * @param key   its key
     * @param value the value, never changed by whoever reads it
     */
    void attach(Object key, Object value) {
        attachedValue = value;
        attachedKey = key;
    }

    @Override
    public KeyValues getHighCardinalityKeyValues() {
        return untracedTags() ? KeyValues.empty() : super.getHighCardinalityKeyValues();
    }

    private boolean untracedTags() {
        return untraced();
    }
}
