package io.varpulis.bench;

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
import io.varpulis.observation.Traces;
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
import java.util.concurrent.atomic.LongAdder;

/**
 * The observation a Spring Boot 4.1 service gets with
 * {@code varpulis.nats.observation-enabled=true}, Actuator and the Brave bridge (issue
 * 23): an {@link ObservationRegistry} with the propagating sender and receiver handlers
 * and the default tracing handler over a Brave tracer (W3C {@code traceparent}, 128-bit
 * trace ids), plus the meter handlers (a timer per observation), grouped first-matching
 * as Boot 4.1 groups them, with the substrate's own meter and sender tracing handlers
 * first, and the {@link #traces()} and {@link #untraced()} the auto-configuration gives
 * the observed transport and deliveries (issue 32).
 * {@code management.tracing.sampling.probability} is the sampler's probability (Boot's
 * default 0.1); a publish or delivery whose trace is not sampled gets no span, only its
 * timer, and carries its {@code traceparent} on. Finished spans are counted and dropped,
 * where Boot would hand them to a reporter (Zipkin, OTLP) on its own thread.
 */
final class BenchTracing implements AutoCloseable {

    private final ObservationRegistry registry = ObservationRegistry.create();

    private final LongAdder spans = new LongAdder();

    private final Tracing tracing;

    private final BraveTracer tracer;

    private final Traces traces;

    private final UntracedObservations untraced;

    /**
     * @param probability the sampling probability, 0 to 1
     */
    BenchTracing(float probability) {
        ThreadLocalCurrentTraceContext context = ThreadLocalCurrentTraceContext.newBuilder().build();
        tracing = Tracing.newBuilder()
            .currentTraceContext(context)
            .propagationFactory(new W3CPropagation())
            .traceId128Bit(true)
            .sampler(Sampler.create(probability))
            .addSpanHandler(new SpanHandler() {
                @Override
                public boolean end(TraceContext traceContext, MutableSpan span, Cause cause) {
                    spans.increment();
                    return true;
                }
            })
            .build();
        tracer = new BraveTracer(tracing.tracer(), new BraveCurrentTraceContext(context));
        BravePropagator propagator = new BravePropagator(tracing);
        NatsSenderTracingObservationHandler senders = new NatsSenderTracingObservationHandler(tracer, propagator);
        NatsReceiverTracingObservationHandler receivers = new NatsReceiverTracingObservationHandler(tracer, propagator);
        // As Spring Boot 4.1 groups them (TracingAndMeterObservationHandlerGroup): the
        // tracing handlers first-matching
        // in bean order, the substrate's own first; the meter handlers likewise, each
        // wrapped for exemplars.
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        NatsMeterObservationHandler timers = new NatsMeterObservationHandler(meters, false);
        traces = new MicrometerTraces(tracer, senders, receivers);
        untraced = new UntracedObservations(timers, List.of(), List.of(), List.of());
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
     * @return trace ids, links and sampling decisions through the tracer, as the
     * auto-configuration makes them
     */
    Traces traces() {
        return traces;
    }

    /**
     * @return what times a message whose trace is not sampled, as the auto-configuration
     * makes it
     */
    UntracedObservations untraced() {
        return untraced;
    }

    /**
     * @return the registry to observe with
     */
    ObservationRegistry registry() {
        return registry;
    }

    /**
     * @return Micrometer Tracing's tracer over the Brave tracer, as Spring Boot makes it
     */
    BraveTracer tracer() {
        return tracer;
    }

    /**
     * @return sampled spans finished so far
     */
    long spans() {
        return spans.sum();
    }

    @Override
    public void close() {
        tracing.close();
    }

}
