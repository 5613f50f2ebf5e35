package io.varpulis.bench;

import brave.Tracing;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.propagation.TraceContext;
import brave.sampler.Sampler;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
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

import java.util.concurrent.atomic.LongAdder;

/**
 * The observation a Spring Boot 4.1 service gets with {@code varpulis.nats.observation-enabled=true}, Actuator and
 * the Brave bridge (issue 23): an {@link ObservationRegistry} with the propagating sender and receiver handlers and
 * the default tracing handler over a Brave tracer (W3C {@code traceparent}, 128-bit trace ids), plus the meter
 * handler (a timer per observation). {@code management.tracing.sampling.probability} is the sampler's probability
 * (Boot's default 0.1); an unsampled delivery still carries its {@code traceparent}. Finished spans are counted and
 * dropped, where Boot would hand them to a reporter (Zipkin, OTLP) on its own thread.
 */
final class BenchTracing implements AutoCloseable {

    private final ObservationRegistry registry = ObservationRegistry.create();
    private final LongAdder spans = new LongAdder();
    private final Tracing tracing;

    /**
     * @param probability the sampling probability, 0 to 1
     */
    BenchTracing(float probability) {
        ThreadLocalCurrentTraceContext context = ThreadLocalCurrentTraceContext.newBuilder().build();
        tracing = Tracing.newBuilder().currentTraceContext(context).propagationFactory(new W3CPropagation())
                .traceId128Bit(true).sampler(Sampler.create(probability)).addSpanHandler(new SpanHandler() {
                    @Override
                    public boolean end(TraceContext traceContext, MutableSpan span, Cause cause) {
                        spans.increment();
                        return true;
                    }
                }).build();
        BraveTracer tracer = new BraveTracer(tracing.tracer(), new BraveCurrentTraceContext(context));
        BravePropagator propagator = new BravePropagator(tracing);
        registry.observationConfig()
                .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                        new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                        new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                        new DefaultTracingObservationHandler(tracer)))
                .observationHandler(new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
    }

    /**
     * @return the registry to observe with
     */
    ObservationRegistry registry() {
        return registry;
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
