package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.nats.Substrate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Core NATS pub/sub, the historical behaviour: fire-and-forget, byte-identical payloads
 * and subjects, no persistence. An event published while nobody is subscribed is lost,
 * and nothing records it.
 */
final class CoreTransport implements ClusterTransport {

    private static final Logger log = LoggerFactory.getLogger(CoreTransport.class);

    private final Connection connection;

    private final AtomicLong localIds = new AtomicLong();

    private final Set<Consumption> consumptions = ConcurrentHashMap.newKeySet();

    CoreTransport(Connection connection) {
        this.connection = connection;
    }

    @Override
    public Substrate substrate() {
        return Substrate.CORE;
    }

    @Override
    public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
        try {
            if (message.headers().isEmpty()) {
                connection.publish(message.subject(), message.data());
            }
            else {
                Headers headers = new Headers();
                message.headers().forEach(headers::add);
                connection.publish(message.subject(), headers, message.data());
            }
            return CompletableFuture.completedFuture(new PublishReceipt(message.subject(), null, 0, false));
        }
        catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new PublishException(message.subject(), e.getMessage(), e));
        }
    }

    @Override
    public long maxPayload() {
        return connection.getMaxPayload();
    }

    @Override
    public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
        Dispatcher dispatcher = connection.createDispatcher();
        dispatcher.subscribe(consumer.filterSubject(), consumer.durable(),
                msg -> handler.onDelivery(new CoreDelivery(msg, "core:" + localIds.incrementAndGet())));
        Consumption consumption = new Consumption() {
            @Override
            public String name() {
                return consumer.durable();
            }

            @Override
            public void drain(Duration timeout) {
                if (consumptions.contains(this) && connection.getStatus() == Connection.Status.CONNECTED) {
                    try {
                        dispatcher.drain(timeout).get(timeout.toMillis() + 100, TimeUnit.MILLISECONDS);
                    }
                    catch (Exception e) {
                        log.debug("draining {}: {}", consumer.durable(), e.toString());
                    }
                }
                close();
            }

            @Override
            public void close() {
                if (consumptions.remove(this) && connection.getStatus() != Connection.Status.CLOSED
                        && dispatcher.isActive()) {
                    connection.closeDispatcher(dispatcher);
                }
            }
        };
        consumptions.add(consumption);
        return consumption;
    }

    @Override
    public void close() {
        consumptions.forEach(Consumption::close);
    }

    /** A core delivery: attempt 1 of 1, no stream, no redelivery. */
    private static final class CoreDelivery extends Delivery {

        private final String localId;

        CoreDelivery(Message message, String localId) {
            super(message);
            this.localId = localId;
        }

        @Override
        public String messageId() {
            String id = publisherMessageId();
            return id == null ? localId : id;
        }

        @Override
        public long attempt() {
            return 1;
        }

        @Override
        public long maxDeliver() {
            return 1;
        }

        @Override
        public Duration ackWait() {
            return Duration.ZERO;
        }

        @Override
        public Optional<Instant> storedAt() {
            return Optional.empty();
        }

        @Override
        public String stream() {
            return null;
        }

        @Override
        public long streamSequence() {
            return 0;
        }

        @Override
        public Substrate substrate() {
            return Substrate.CORE;
        }

        @Override
        protected void doAck() {
            // Nothing to acknowledge: core keeps no delivery state.
        }

        @Override
        protected void doNak(Duration delay) {
            log.warn("core substrate: the event on {} was not applied and core NATS never redelivers it, so it is "
                    + "lost; set VARPULIS_NATS_SUBSTRATE=jetstream to keep it", subject());
        }

    }

}
