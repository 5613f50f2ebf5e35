package io.varpulis.bench;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.TimedClusterTransport;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What a node adds to every publish that the throughput scenario's product client (the transport without Spring)
 * does not: {@link TimedClusterTransport}, which the node wraps around its transport to time each publish into a
 * Prometheus percentile histogram. Measured around a transport whose PubAck is already there, next to that transport
 * alone.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class PublishTimingBenchmark {

    private final OutboundMessage message = new OutboundMessage("varpulis.cluster.pipeline.bench._external.sink",
            Payloads.event(42), null);
    private final ClusterTransport confirmedAtOnce = new ConfirmedAtOnce();
    private final ClusterTransport timed = new TimedClusterTransport(confirmedAtOnce,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));

    @Benchmark
    public CompletableFuture<PublishReceipt> publishUntimed() {
        return confirmedAtOnce.publish(message);
    }

    @Benchmark
    public CompletableFuture<PublishReceipt> publishTimed() {
        return timed.publish(message);
    }

    /** A transport whose every publish is confirmed before it returns. */
    private static final class ConfirmedAtOnce implements ClusterTransport {

        @Override
        public Substrate substrate() {
            return Substrate.JETSTREAM;
        }

        @Override
        public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
            return CompletableFuture.completedFuture(new PublishReceipt(message.subject(), "VARPULIS_ROUTING", 42,
                    false));
        }

        @Override
        public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
            throw new UnsupportedOperationException("publish only");
        }

        @Override
        public void close() {
        }
    }
}
