package io.varpulis.bench;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.nats.client.impl.NatsMessage;
import io.varpulis.container.Decision;
import io.varpulis.container.Outcome;
import io.varpulis.container.Settlement;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.delivery.RouteIngress;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.TestPipelines;
import io.varpulis.transport.Delivery;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The product's CPU per routed event on the consumer side, without the network: {@link RouteIngress#handle} (decode,
 * a no-op processor, emit nothing), the container's {@link Settlement} of its outcome and the ack, and the apply's
 * meters on a Prometheus registry as in the node, on a delivery whose ack goes nowhere (the container's hand-over
 * between the client's thread and its applying thread is not in it). Next to it, the meters alone: as {@link SubstrateMetrics} records them now (meters resolved once
 * per pipeline) and as it did before (a registry lookup per event).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class RouteIngressBenchmark {

    private final MeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final SubstrateMetrics metrics = new SubstrateMetrics(registry);
    private final RouteEdge edge = new RouteEdge("bench", "_external", "sink");
    // The parker is never called: every payload decodes and applies.
    private final RouteIngress ingress = new RouteIngress(edge, List.of("*"), TestPipelines.deployed(edge.group(),
            edge.to(), (event, context) -> List.of(), new InMemoryKeyValueState()), OutputEmitter.NONE,
            new EventCodec(), null, RouteIngress.OwnershipListener.NONE);
    private final Settlement settlement = new Settlement(Duration.ofSeconds(2));
    private final DeliveryMeters meters = metrics.deliveries("sink", SubstrateMetrics.UNPARTITIONED, true);
    private final NatsMessage message = NatsMessage.builder().subject(edge.subject()).data(Payloads.event(42))
            .build();
    private final Duration applyTime = Duration.ofNanos(25_000);

    @Benchmark
    public void ingressHandledSettledAndAcked() {
        Delivery delivery = new AckedNowhere(message);
        long started = System.nanoTime();
        Outcome outcome = ingress.handle(delivery).toCompletableFuture().join();
        if (settlement.decide(outcome, delivery.attempt(), delivery.maxDeliver(), Settlement.State.RUNNING).action()
                == Decision.Action.ACK) {
            delivery.ack();
            meters.applied(System.nanoTime() - started, 0);
        }
    }

    @Benchmark
    public void metersResolvedOnce() {
        metrics.applied("sink", SubstrateMetrics.UNPARTITIONED, applyTime);
    }

    @Benchmark
    public void metersLookedUpPerEvent() {
        registry.counter("varpulis.events.applied", "pipeline", "sink").increment();
        Timer.builder("varpulis.events.apply").description("apply of one event, outputs confirmed")
                .tag("pipeline", "sink").register(registry).record(applyTime);
    }

    /** A first delivery on JetStream whose ack and nak go nowhere. */
    private static final class AckedNowhere extends Delivery {

        AckedNowhere(NatsMessage message) {
            super(message);
        }

        @Override
        public String messageId() {
            return "VARPULIS_ROUTING:42";
        }

        @Override
        public long attempt() {
            return 1;
        }

        @Override
        public long maxDeliver() {
            return 5;
        }

        @Override
        public Duration ackWait() {
            return Duration.ofSeconds(30);
        }

        @Override
        public Optional<Instant> storedAt() {
            return Optional.empty();
        }

        @Override
        public String stream() {
            return "VARPULIS_ROUTING";
        }

        @Override
        public long streamSequence() {
            return 42;
        }

        @Override
        public Substrate substrate() {
            return Substrate.JETSTREAM;
        }

        @Override
        protected void doAck() {
        }

        @Override
        protected void doNak(Duration delay) {
        }
    }
}
