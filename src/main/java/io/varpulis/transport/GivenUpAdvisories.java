package io.varpulis.transport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.Subscription;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.NatsMessage;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.nats.Substrate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Listens for the server's max-deliveries advisories of the durables this transport
 * consumes ({@code $JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.{stream}.{durable}}), and
 * tells each one's handler which message the server gave up on (SPEC section 9: nothing
 * leaves silently). Each durable's advisories are read in the queue group
 * {@value #QUEUE}, so of the processes (or concurrent consumptions) that consume one
 * durable, one is told.
 * <p>
 * Advisories are core messages: one published while no process consuming the durable is
 * connected is not seen. Alert on the server's advisories for that case
 * (docs/OPERATING.md).
 */
final class GivenUpAdvisories implements AutoCloseable {

    /** The queue group every consumer of a durable reads its advisories in. */
    static final String QUEUE = "varpulis-max-deliveries";

    /** JetStream's "no message found" (the stream no longer holds the sequence). */
    private static final int NO_MESSAGE_FOUND = 10037;

    private static final Logger log = LoggerFactory.getLogger(GivenUpAdvisories.class);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Connection connection;

    private final JetStreamAdmin admin;

    private Dispatcher dispatcher;

    GivenUpAdvisories(Connection connection, JetStreamAdmin admin) {
        this.connection = connection;
        this.admin = admin;
    }

    /**
     * Starts telling the handler about the messages the server gives up on for this
     * durable.
     * @param consumer the durable consumer
     * @param handler told of each
     * @param maxDeliver the consumer's max_deliver as the server has it
     * @param ackWait its ack_wait
     * @return the subscription; close it with the consumption
     */
    synchronized Watch watch(ConsumerDeclaration consumer, DeliveryHandler handler, long maxDeliver, Duration ackWait) {
        if (dispatcher == null) {
            dispatcher = connection.createDispatcher();
        }
        String subject = GivenUpMessage.ADVISORY_ROOT + "." + consumer.stream() + "." + consumer.durable();
        Subscription subscription = dispatcher.subscribe(subject, QUEUE, advisory -> {
            Advisory read = read(consumer, advisory);
            if (read != null) {
                handler.onGivenUp(new Given(consumer, read, ackWait));
            }
        });
        Dispatcher mine = dispatcher;
        return () -> {
            synchronized (this) {
                if (mine.isActive() && subscription.isActive()) {
                    mine.unsubscribe(subscription);
                }
            }
        };
    }

    @Override
    public synchronized void close() {
        if (dispatcher != null && dispatcher.isActive() && connection.getStatus() != Connection.Status.CLOSED) {
            connection.closeDispatcher(dispatcher);
        }
        dispatcher = null;
    }

    private static Advisory read(ConsumerDeclaration consumer, Message advisory) {
        try {
            JsonNode json = JSON.readTree(advisory.getData());
            return new Advisory(json.path("stream_seq").asLong(), json.path("deliveries").asLong());
        }
        catch (IOException | RuntimeException e) {
            log.error(
                    "durable {} on stream {}: a max-deliveries advisory that cannot be read ({}); its message is not "
                            + "parked: find it with the server's advisories, {}",
                    consumer.durable(), consumer.stream(), e.toString(),
                    new String(advisory.getData(), java.nio.charset.StandardCharsets.UTF_8));
            return null;
        }
    }

    /** A subscription to one durable's advisories. */
    @FunctionalInterface
    interface Watch extends AutoCloseable {

        @Override
        void close();

    }

    private record Advisory(long streamSequence, long deliveries) {
    }

    /** One advisory, with the read of its stored message. */
    private final class Given implements GivenUpMessage {

        private final ConsumerDeclaration consumer;

        private final Advisory advisory;

        private final Duration ackWait;

        private Given(ConsumerDeclaration consumer, Advisory advisory, Duration ackWait) {
            this.consumer = consumer;
            this.advisory = advisory;
            this.ackWait = ackWait;
        }

        @Override
        public String stream() {
            return consumer.stream();
        }

        @Override
        public String durable() {
            return consumer.durable();
        }

        @Override
        public long streamSequence() {
            return advisory.streamSequence();
        }

        @Override
        public long deliveries() {
            return advisory.deliveries();
        }

        @Override
        public Optional<Delivery> load() throws IOException {
            MessageInfo stored;
            try {
                stored = admin.management().getMessage(consumer.stream(), advisory.streamSequence());
            }
            catch (JetStreamApiException e) {
                if (e.getApiErrorCode() == NO_MESSAGE_FOUND) {
                    return Optional.empty();
                }
                throw new IOException("stream " + consumer.stream() + " sequence " + advisory.streamSequence()
                        + " could not be read: " + e.getMessage(), e);
            }
            NatsMessage message = NatsMessage.builder()
                .subject(stored.getSubject())
                .headers(stored.getHeaders())
                .data(stored.getData())
                .build();
            Instant storedAt = stored.getTime() == null ? null : stored.getTime().toInstant();
            return Optional.of(new GivenUpDelivery(message, consumer.stream(), advisory, storedAt, ackWait));
        }

        @Override
        public String toString() {
            return "stream " + consumer.stream() + " sequence " + advisory.streamSequence() + " (durable "
                    + consumer.durable() + ", " + advisory.deliveries() + " deliveries)";
        }

    }

    /**
     * The stored copy of a message given up on, as a delivery on its last attempt:
     * nothing it settles reaches the server, which no longer delivers it.
     */
    private static final class GivenUpDelivery extends Delivery {

        private final String stream;

        private final Advisory advisory;

        private final Instant storedAt;

        private final Duration ackWait;

        private GivenUpDelivery(Message message, String stream, Advisory advisory, Instant storedAt, Duration ackWait) {
            super(message);
            this.stream = stream;
            this.advisory = advisory;
            this.storedAt = storedAt;
            this.ackWait = ackWait;
        }

        @Override
        public String messageId() {
            String id = publisherMessageId();
            return id == null ? stream + ":" + advisory.streamSequence() : id;
        }

        @Override
        public long attempt() {
            return advisory.deliveries();
        }

        @Override
        public long maxDeliver() {
            return advisory.deliveries();
        }

        @Override
        public Duration ackWait() {
            return ackWait;
        }

        @Override
        public Optional<Instant> storedAt() {
            return Optional.ofNullable(storedAt);
        }

        @Override
        public String stream() {
            return stream;
        }

        @Override
        public long streamSequence() {
            return advisory.streamSequence();
        }

        @Override
        public Substrate substrate() {
            return Substrate.JETSTREAM;
        }

        @Override
        protected void doAck() {
            // The server gave it up: there is nothing to acknowledge.
        }

        @Override
        protected void doNak(Duration delay) {
            // Nor to redeliver.
        }

    }

}
