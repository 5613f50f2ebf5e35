package io.varpulis.container;

import com.fasterxml.jackson.databind.json.JsonMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.impl.NatsMessage;
import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryDecorator;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.springframework.util.backoff.FixedBackOff;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A {@link DeliveryContainer} with everything around it made here, for unit tests of the
 * container and its {@link Settler} (the broker-backed tests run them on real servers): a
 * transport that hands over the deliveries a test makes and records what is published
 * (death envelopes), deliveries that record how they were settled, real meters.
 */
final class ContainerRig implements AutoCloseable {

    static final Duration NAK_DELAY = Duration.ofMillis(100);

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    final SubstrateMetrics metrics = new SubstrateMetrics(registry);

    final TestTransport transport = new TestTransport();

    final DeliveryContainerFactory factory;

    ContainerRig(DeliveryDecorator decorator) {
        factory = new DeliveryContainerFactory(transport,
                new DeadLetterParker(transport, JsonMapper.builder().build(), Clock.systemUTC()),
                settings(1, Duration.ofMinutes(5), null), decorator);
    }

    ContainerRig() {
        this(DeliveryDecorator.NONE);
    }

    static ContainerSettings settings(int concurrency, Duration applyTimeout, DeliveryErrorHandler errorHandler) {
        return new ContainerSettings(concurrency,
                new FixedBackOff(NAK_DELAY.toMillis(), FixedBackOff.UNLIMITED_ATTEMPTS), applyTimeout, true,
                errorHandler, false, null, ContainerEvents.NONE);
    }

    DeliveryContainer start(DeliveryAdapter adapter) {
        return start(settings(1, Duration.ofMinutes(5), null), adapter);
    }

    DeliveryContainer start(ContainerSettings settings, DeliveryAdapter adapter) {
        return factory.create(consumer(), "orders", meters(), settings, adapter).start();
    }

    DeliveryContainer startBatch(BatchDeliveryAdapter adapter) {
        return factory.createBatch(consumer(), "orders", meters(), settings(1, Duration.ofMinutes(5), null), adapter)
            .start();
    }

    private static ConsumerDeclaration consumer() {
        return new ConsumerDeclaration("ORDERS",
                ConsumerConfiguration.builder()
                    .durable("orders")
                    .filterSubject("orders.>")
                    .ackPolicy(AckPolicy.Explicit)
                    .build());
    }

    private DeliveryMeters meters() {
        return metrics.deliveries("orders", SubstrateMetrics.UNPARTITIONED, true);
    }

    double count(String name, String... tags) {
        var counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    @Override
    public void close() {
        factory.close();
    }

    /** Records what it is asked to publish; hands over what a test delivers. */
    static final class TestTransport implements ClusterTransport {

        final List<OutboundMessage> published = new CopyOnWriteArrayList<>();

        volatile Function<OutboundMessage, CompletableFuture<PublishReceipt>> answer = message -> CompletableFuture
            .completedFuture(new PublishReceipt(message.subject(), "VARPULIS_DLQ", published.size(), false));

        volatile DeliveryHandler handler;

        @Override
        public Substrate substrate() {
            return Substrate.JETSTREAM;
        }

        @Override
        public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
            published.add(message);
            return answer.apply(message);
        }

        @Override
        public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
            this.handler = handler;
            return new Consumption() {
                @Override
                public String name() {
                    return consumer.durable();
                }

                @Override
                public void drain(Duration timeout) {
                }

                @Override
                public void close() {
                }
            };
        }

        void deliver(TestDelivery delivery) {
            handler.onDelivery(delivery);
        }

        @Override
        public void close() {
        }

    }

    /** A JetStream delivery that records its settlement. */
    static final class TestDelivery extends Delivery {

        final long sequence;

        final long attempt;

        final long maxDeliver;

        volatile Duration nakDelay;

        volatile int inProgress;

        TestDelivery(long sequence, long attempt, long maxDeliver) {
            super(NatsMessage.builder()
                .subject("orders." + sequence)
                .data(("{\"id\":" + sequence + "}").getBytes(StandardCharsets.UTF_8))
                .build());
            this.sequence = sequence;
            this.attempt = attempt;
            this.maxDeliver = maxDeliver;
        }

        TestDelivery(long sequence) {
            this(sequence, 1, 5);
        }

        @Override
        public String messageId() {
            return "ORDERS:" + sequence;
        }

        @Override
        public long attempt() {
            return attempt;
        }

        @Override
        public long maxDeliver() {
            return maxDeliver;
        }

        @Override
        public Duration ackWait() {
            return Duration.ofSeconds(30);
        }

        @Override
        public Optional<Instant> storedAt() {
            return Optional.of(Instant.now());
        }

        @Override
        public String stream() {
            return "ORDERS";
        }

        @Override
        public long streamSequence() {
            return sequence;
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
            nakDelay = delay;
        }

        @Override
        protected void doInProgress() {
            inProgress++;
        }

    }

}
