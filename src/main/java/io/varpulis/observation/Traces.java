package io.varpulis.observation;

import io.micrometer.observation.Observation;

import java.util.Map;

/**
 * What the substrate needs from the tracer behind its observations, beyond Micrometer's
 * Observation API (SPEC section 14): the trace id of an observation's span, which a
 * parked event's death envelope names ({@code trace_id}); a span linked to another trace,
 * with which a replay from the DLQ points back at the trace that parked the event; and
 * whether a publish's trace is sampled, decided before its observation is built (issue
 * 32), so that a publish no span records is only timed ({@link UntracedObservations}).
 * {@link #NONE} without a tracer (observations then only time); {@link MicrometerTraces}
 * with Micrometer Tracing's {@code Tracer} (Brave or OpenTelemetry, as Spring Boot
 * configures it).
 */
public interface Traces {

    /** No tracer: no trace id, no linked span. */
    Traces NONE = new Traces() {
        @Override
        public String traceId(Observation observation) {
            return null;
        }

        @Override
        public LinkedSpan startLinked(String name, String traceparent, Map<String, String> tags) {
            return LinkedSpan.NONE;
        }
    };

    /**
     * What the tracer decided about a publish's trace before its observation was built.
     */
    enum Sampling {

        /**
         * Sampled: its span is started and kept in the context; the observation must
         * start (and end it).
         */
        SAMPLED,
        /**
         * Sampled out: its trace headers are written in the context's carrier; no span,
         * no observation needed.
         */
        UNSAMPLED,
        /**
         * Not decided (no tracer that decides first): the observation decides as it
         * starts.
         */
        UNDECIDED

    }

    /**
     * @return whether {@link #decide} decides: then a delivery whose headers say its
     * trace is not sampled is only timed too, and what it publishes carries its trace
     * headers through
     */
    default boolean decides() {
        return false;
    }

    /**
     * Starts the span of a publish, or learns that its trace is not sampled, before its
     * observation is built.
     * @param context the publish's context, its parent observation set
     * @return what was decided
     */
    default Sampling decide(NatsSendContext context) {
        return Sampling.UNDECIDED;
    }

    /**
     * Starts the span of a delivery that carries no trace headers, or learns that the
     * trace it would start is not sampled, before its observation is built.
     * @param context the delivery's context
     * @return what was decided
     */
    default Sampling decide(NatsProcessContext context) {
        return Sampling.UNDECIDED;
    }

    /**
     * Abandons the span that {@link #decide(NatsProcessContext)} started for a delivery
     * whose observation then did not start.
     * @param context the delivery's context
     */
    default void abandon(NatsProcessContext context) {
    }

    /**
     * Abandons the span that {@link #decide} started for a publish whose observation then
     * did not start.
     * @param context the publish's context
     */
    default void abandon(NatsSendContext context) {
    }

    /**
     * @param observation a started observation
     * @return the trace id of its span (32 or 16 lower-case hex digits), or {@code null}
     * when it has none (not traced, not sampled in, no tracer)
     */
    String traceId(Observation observation);

    /**
     * Starts a span, the child of the current span if any, with a span link to the
     * context that {@code traceparent} names, and makes it current until
     * {@link LinkedSpan#closeScope()}: an observation started meanwhile is its child.
     * With OpenTelemetry the link is a real span link; Brave (Zipkin) has no links, and
     * Micrometer's Brave bridge records it as the tags {@code links[0].traceId} and
     * {@code links[0].spanId}.
     * @param name the span's name
     * @param traceparent a W3C {@code traceparent} or a single B3 header naming the
     * linked span
     * @param tags tags of the span
     * @return the started span, or {@link LinkedSpan#NONE} when the header cannot be read
     * or there is no tracer
     */
    LinkedSpan startLinked(String name, String traceparent, Map<String, String> tags);

    /**
     * A span started by {@link #startLinked}: its scope closes on the thread that opened
     * it, it ends later.
     */
    interface LinkedSpan {

        /** Nothing started. */
        LinkedSpan NONE = new LinkedSpan() {
            @Override
            public void closeScope() {
            }

            @Override
            public void end(Throwable error) {
            }
        };

        /** Stops it being current (on the thread that started it). */
        void closeScope();

        /**
         * Ends the span.
         * @param error the failure to record on it, or {@code null}
         */
        void end(Throwable error);

    }

}
