package io.varpulis.test;

import brave.Tracing;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.propagation.TraceContext;
import brave.sampler.Sampler;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.tracing.handler.TracingAwareMeterObservationHandler;
import io.varpulis.observation.NatsMeterObservationHandler;
import io.varpulis.observation.MicrometerTraces;
import io.varpulis.observation.NatsReceiverTracingObservationHandler;
import io.varpulis.observation.NatsSenderTracingObservationHandler;
import io.varpulis.observation.UntracedObservations;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.brave.bridge.W3CPropagation;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A real Brave tracer with W3C propagation, wired to an {@link ObservationRegistry} the
 * way Spring Boot wires it (the propagating sender and receiver handlers, the default
 * tracing handler, the meter handler, and the substrate's own meter and sender tracing
 * handlers first), that keeps the finished spans in memory; with the {@link #traces()}
 * and {@link #untraced()} that the auto-configuration gives the observed transport and
 * deliveries.
 */
public final class InMemoryTracing implements AutoCloseable {

    // A queue, not a copy-on-write list: a benchmark ends tens of thousands of spans.
    private final Queue<MutableSpan> spans = new ConcurrentLinkedQueue<>();

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private final ObservationRegistry registry = ObservationRegistry.create();

    private final Tracing tracing;

    private final BraveTracer tracer;

    private final MicrometerTraces traces;

    private final UntracedObservations untraced;

    /** Starts the tracer, sampling every trace. */
    public InMemoryTracing() {
        this(Sampler.ALWAYS_SAMPLE);
    }

    /**
     * Starts the tracer.
     * @param sampler decides new traces (a root publish, a delivery without trace
     * headers)
     */
    public InMemoryTracing(Sampler sampler) {
        ThreadLocalCurrentTraceContext context = ThreadLocalCurrentTraceContext.newBuilder().build();
        tracing = Tracing.newBuilder()
            .currentTraceContext(context)
            .propagationFactory(new W3CPropagation())
            .traceId128Bit(true)
            .sampler(sampler)
            .addSpanHandler(new SpanHandler() {
                @Override
                public boolean end(TraceContext traceContext, MutableSpan span, Cause cause) {
                    spans.add(span);
                    return true;
                }
            })
            .build();
        tracer = new BraveTracer(tracing.tracer(), new BraveCurrentTraceContext(context));
        NatsMeterObservationHandler timers = new NatsMeterObservationHandler(meters, false);
        BravePropagator propagator = new BravePropagator(tracing);
        NatsSenderTracingObservationHandler senders = new NatsSenderTracingObservationHandler(tracer, propagator);
        NatsReceiverTracingObservationHandler receivers = new NatsReceiverTracingObservationHandler(tracer, propagator);
        traces = new MicrometerTraces(tracer, senders, receivers);
        untraced = new UntracedObservations(timers, List.of(), List.of(), List.of());
        // As Spring Boot 4.1 groups the beans varpulis.nats.observation-enabled adds (the
        // substrate's own meter and
        // sender tracing handlers, ordered first) with its own: first-matching, meter
        // handlers wrapped for exemplars.
        registry.observationConfig()
            .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(senders, receivers,
                    new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                    new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                    new DefaultTracingObservationHandler(tracer)))
            .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                    new TracingAwareMeterObservationHandler<>(timers, tracer),
                    new TracingAwareMeterObservationHandler<>(new DefaultMeterObservationHandler(meters), tracer)));
    }

    /**
     * @param name a span name
     * @return the finished spans of that name, in the order they ended
     */
    public List<MutableSpan> named(String name) {
        return spans.stream().filter(s -> name.equals(s.name())).toList();
    }

    /**
     * @return Micrometer Tracing's tracer over the Brave tracer, as Spring Boot makes it
     */
    public BraveTracer tracer() {
        return tracer;
    }

    /**
     * @return trace ids, links and sampling decisions through the tracer, as the
     * auto-configuration makes them
     */
    public MicrometerTraces traces() {
        return traces;
    }

    /**
     * @return what times a message whose trace is not sampled, as the auto-configuration
     * makes it
     */
    public UntracedObservations untraced() {
        return untraced;
    }

    /**
     * @return the registry to observe with
     */
    public ObservationRegistry registry() {
        return registry;
    }

    /**
     * @return the timers the meter handler recorded
     */
    public SimpleMeterRegistry meters() {
        return meters;
    }

    /**
     * @return every finished span, in the order they ended
     */
    public Queue<MutableSpan> spans() {
        return spans;
    }

    @Override
    public void close() {
        tracing.close();
    }

}
