package io.varpulis.observation;

import io.micrometer.observation.transport.SenderContext;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The context of one publish: its carrier is the header map of the outbound message, into which Spring Boot's
 * configured propagation (W3C {@code traceparent}/{@code tracestate}/{@code baggage}, or B3) writes through the
 * tracing bridge when the observation starts.
 */
public class NatsSendContext extends SenderContext<Map<String, String>> {

    private final String subject;
    private final String messageId;
    private final String parkedTraceId;

    /**
     * @param subject       the subject published on
     * @param messageId     its {@code Nats-Msg-Id}, or {@code null}
     * @param parkedTraceId for a replay of a parked event, the trace id of the delivery that parked it, else
     *                      {@code null}
     * @param propagate     {@code false} to write no trace header (a message already at the server's max_payload)
     */
    public NatsSendContext(String subject, String messageId, String parkedTraceId, boolean propagate) {
        super(propagate ? Map::put : (carrier, key, value) -> { });
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
}
