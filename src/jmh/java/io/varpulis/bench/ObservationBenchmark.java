package io.varpulis.bench;

import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.observation.ObservedClusterTransport;
import io.varpulis.observation.ObservedDeliveries;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryDecorator;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What observation costs one routed hop in CPU, without the network (issue 32): a root publish through the
 * {@link ObservedClusterTransport} (a transport whose PubAck is already there underneath), then its delivery, carrying
 * the headers the publish wrote, decorated with the process observation ({@link ObservedDeliveries}), processed in
 * its context and acked; with observation off (the transport as it is, no decorator), and on with Brave tracing as
 * Spring Boot 4.1 wires it ({@link BenchTracing}) at 10 % and 100 % sampling.
 * <p>{@code ./mvnw -o -q -Pbench test-compile exec:java ...} or through {@code scripts/bench.sh --scenarios=micro}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class ObservationBenchmark {

    /** {@code off}, or the sampling probability in percent. */
    @Param({"off", "10", "100"})
    public String mode;

    private final ConsumerDeclaration consumer = VarpulisJetStream.routeEdgeConsumer("sink",
            "varpulis.cluster.pipeline.bench._external.sink", ConsumerSettings.defaults());
    private final byte[] payload = Payloads.event(42);
    private BenchTracing tracing;
    private ClusterTransport transport;
    private DeliveryDecorator decorator;

    @Setup(Level.Trial)
    public void setUp() {
        ClusterTransport stored = new Stored();
        if ("off".equals(mode)) {
            transport = stored;
            decorator = DeliveryDecorator.NONE;
            return;
        }
        tracing = new BenchTracing(Integer.parseInt(mode) / 100f);
        transport = new ObservedClusterTransport(stored, tracing.registry(), null, null, tracing.traces(),
                tracing.untraced());
        decorator = new ObservedDeliveries(tracing.registry(), null, tracing.traces(), tracing.untraced());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (tracing != null) {
            tracing.close();
        }
    }

    /**
     * One hop: publish (send observation, trace headers written), then the delivery of what was published (process
     * observation, its scope around the work, ended by the ack).
     *
     * @return the delivery, so that the JIT keeps it
     */
    @Benchmark
    public Delivery publishThenProcess() {
        OutboundMessage[] sent = new OutboundMessage[1];
        ((Stored) (transport instanceof ObservedClusterTransport observed ? observed.delegate() : transport))
                .capture(sent);
        transport.publish(new OutboundMessage(consumer.filterSubject(), payload, "bench:1")).join();
        Headers headers = new Headers();
        sent[0].headers().forEach(headers::put);
        Delivery delivery = decorator.decorate(consumer, new Received(NatsMessage.builder()
                .subject(consumer.filterSubject()).headers(headers).data(payload).build()));
        delivery.inContext(() -> delivery.subject().length());
        delivery.ack();
        return delivery;
    }

    /** A transport whose PubAck is already there, keeping the last message published. */
    private static final class Stored implements ClusterTransport {

        private static final CompletableFuture<PublishReceipt> RECEIPT = CompletableFuture.completedFuture(
                new PublishReceipt("s", "VARPULIS_ROUTING", 1, false));
        private OutboundMessage[] sink;

        void capture(OutboundMessage[] sink) {
            this.sink = sink;
        }

        @Override
        public Substrate substrate() {
            return Substrate.JETSTREAM;
        }

        @Override
        public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
            sink[0] = message;
            return RECEIPT;
        }

        @Override
        public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }

    /** A first delivery whose ack goes nowhere. */
    private static final class Received extends Delivery {

        Received(NatsMessage message) {
            super(message);
        }

        @Override
        public String messageId() {
            return "bench:1";
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
            return 1;
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
