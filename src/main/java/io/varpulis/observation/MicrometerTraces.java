package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link Traces} on Micrometer Tracing's {@link Tracer}, the one Spring Boot builds over
 * Brave or OpenTelemetry: an observation's trace id is that of the span its tracing
 * handler keeps in the observation's context; a linked span is built with
 * {@link Span.Builder#addLink(Link)}; a publish's sampling is decided by Micrometer's own
 * sender handler ({@link NatsSenderTracingObservationHandler}) before its observation is
 * built, and that of a delivery without trace headers by its receiver handler
 * ({@link NatsReceiverTracingObservationHandler}). Only loaded when Micrometer Tracing is
 * on the classpath.
 */
public class MicrometerTraces implements Traces {

    /** W3C: {@code 00-{32 hex trace id}-{16 hex span id}-{2 hex flags}}. */
    private static final Pattern W3C = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");

    /**
     * B3 single header: {@code {16 or 32 hex trace id}-{16 hex span
     * id}[-{sampled}[-{parent span id}]]}.
     */
    private static final Pattern B3 = Pattern
        .compile("([0-9a-f]{16}|[0-9a-f]{32})-([0-9a-f]{16})(?:-([01d]))?(?:-.*)?");

    private final Tracer tracer;

    private final NatsSenderTracingObservationHandler senders;

    private final NatsReceiverTracingObservationHandler receivers;

    /**
     * Trace ids and links only: every publish and delivery is observed, its sampling
     * decided as it starts.
     * @param tracer the application's tracer
     */
    public MicrometerTraces(Tracer tracer) {
        this(tracer, null);
    }

    /**
     * @param tracer the application's tracer
     * @param senders the sender tracing handler registered first on the observation
     * registry, which decides a publish's sampling before its observation, or
     * {@code null} for none
     */
    public MicrometerTraces(Tracer tracer, NatsSenderTracingObservationHandler senders) {
        this(tracer, senders, null);
    }

    /**
     * @param tracer the application's tracer
     * @param senders the sender tracing handler registered first on the observation
     * registry, which decides a publish's sampling before its observation, or
     * {@code null} for none
     * @param receivers the receiver tracing handler registered first on the observation
     * registry, which decides the sampling of a delivery without trace headers before its
     * observation, or {@code null} for none (such a delivery is then observed, its
     * sampling decided as it starts)
     */
    public MicrometerTraces(Tracer tracer, NatsSenderTracingObservationHandler senders,
            NatsReceiverTracingObservationHandler receivers) {
        this.tracer = tracer;
        this.senders = senders;
        this.receivers = receivers;
    }

    @Override
    public boolean decides() {
        return senders != null;
    }

    @Override
    public Sampling decide(NatsSendContext context) {
        if (senders == null) {
            return Sampling.UNDECIDED;
        }
        return senders.decide(context) ? Sampling.SAMPLED : Sampling.UNSAMPLED;
    }

    @Override
    public void abandon(NatsSendContext context) {
        if (senders != null) {
            senders.abandon(context);
        }
    }

    @Override
    public Sampling decide(NatsProcessContext context) {
        if (receivers == null) {
            return Sampling.UNDECIDED;
        }
        return receivers.decide(context) ? Sampling.SAMPLED : Sampling.UNSAMPLED;
    }

    @Override
    public void abandon(NatsProcessContext context) {
        if (receivers != null) {
            receivers.abandon(context);
        }
    }

    @Override
    public String traceId(Observation observation) {
        TracingObservationHandler.TracingContext tracing = observation.getContextView()
            .get(TracingObservationHandler.TracingContext.class);
        Span span = tracing == null ? null : tracing.getSpan();
        // An unsampled span has an id too, but its trace never reaches the backend:
        // naming it would send an operator
        // looking for a trace that does not exist.
        if (span == null || !Boolean.TRUE.equals(span.context().sampled())) {
            return null;
        }
        String id = span.context().traceId();
        return id == null || id.isEmpty() ? null : id;
    }

    @Override
    public LinkedSpan startLinked(String name, String traceparent, Map<String, String> tags) {
        TraceContext linked = context(traceparent);
        if (linked == null) {
            return LinkedSpan.NONE;
        }
        Span.Builder builder = tracer.spanBuilder().name(name).addLink(new Link(linked));
        tags.forEach(builder::tag);
        Span span = builder.start();
        Tracer.SpanInScope scope = tracer.withSpan(span);
        return new LinkedSpan() {
            @Override
            public void closeScope() {
                scope.close();
            }

            @Override
            public void end(Throwable error) {
                if (error != null) {
                    span.error(error);
                }
                span.end();
            }
        };
    }

    /**
     * The context a {@code traceparent} or B3 header names, or {@code null} when it is
     * neither.
     */
    private TraceContext context(String header) {
        if (header == null) {
            return null;
        }
        String text = header.trim().toLowerCase(java.util.Locale.ROOT);
        Matcher w3c = W3C.matcher(text);
        if (w3c.matches()) {
            return tracer.traceContextBuilder()
                .traceId(w3c.group(1))
                .spanId(w3c.group(2))
                .sampled((Integer.parseInt(w3c.group(3), 16) & 1) == 1)
                .build();
        }
        Matcher b3 = B3.matcher(text);
        if (b3.matches()) {
            return tracer.traceContextBuilder()
                .traceId(b3.group(1))
                .spanId(b3.group(2))
                .sampled(b3.group(3) == null ? null : !"0".equals(b3.group(3)))
                .build();
        }
        return null;
    }

}
