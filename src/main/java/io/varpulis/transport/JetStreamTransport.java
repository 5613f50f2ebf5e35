package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.ConsumeOptions;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.MessageConsumer;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.NatsJetStreamMetaData;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.nats.Substrate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * JetStream: every publish is stored and confirmed by a PubAck, every consumer is a durable pull consumer whose
 * unacked messages come back after ack_wait, up to max_deliver times (ADR-007).
 * <p>Publishing pipelines confirmations: up to {@code maxOutstanding} PubAcks may be awaited at once, which keeps
 * throughput near the raw client's; a full window makes the publisher wait rather than buffer without bound.
 */
final class JetStreamTransport implements ClusterTransport {

    private static final Logger log = LoggerFactory.getLogger(JetStreamTransport.class);

    /**
     * How long one pull request stays open. A stopped consumer is finished only when its open pull ends, so this
     * bounds how long {@link Consumption#drain} waits on an idle consumer; jnats' default (30 s) made every graceful
     * shutdown of an idle worker last its whole drain-timeout. An empty pull costs one small request per consumer.
     */
    private static final Duration PULL_EXPIRES = Duration.ofSeconds(2);

    private final Connection connection;
    private final JetStream jetStream;
    private final JetStreamAdmin admin;
    private final TransportSettings settings;
    private final Semaphore window;
    private final PubAckDeadlines deadlines;
    private final Set<Consumption> consumptions = ConcurrentHashMap.newKeySet();

    JetStreamTransport(Connection connection, JetStreamAdmin admin, TransportSettings settings) {
        this.connection = connection;
        this.admin = admin;
        this.settings = settings;
        this.window = new Semaphore(settings.maxOutstandingPublishes());
        try {
            this.jetStream = connection.jetStream();
        } catch (IOException e) {
            throw new IllegalStateException("cannot open the JetStream context: " + e.getMessage(), e);
        }
        this.deadlines = new PubAckDeadlines(settings.publishTimeout());
    }

    @Override
    public Substrate substrate() {
        return Substrate.JETSTREAM;
    }

    @Override
    public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
        String subject = message.subject();
        try {
            if (!window.tryAcquire(settings.publishTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                return CompletableFuture.failedFuture(new PublishException(subject, settings.maxOutstandingPublishes()
                        + " PubAcks were outstanding for " + settings.publishTimeout().toMillis() + " ms", null));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(new PublishException(subject, "interrupted", e));
        }
        CompletableFuture<PublishAck> ack;
        try {
            PublishOptions options = message.messageId() == null ? null
                    : PublishOptions.builder().messageId(message.messageId()).build();
            ack = jetStream.publishAsync(subject, null, message.data(), options);
        } catch (RuntimeException e) {
            window.release();
            return CompletableFuture.failedFuture(new PublishException(subject, e.getMessage(), e));
        }
        return deadlines.watch(ack)
                .handle((pa, error) -> {
                    window.release();
                    if (error != null) {
                        throw new PublishException(subject, reason(error), unwrap(error));
                    }
                    return new PublishReceipt(subject, pa.getStream(), pa.getSeqno(), pa.isDuplicate());
                });
    }

    @Override
    public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
        // The server's max_deliver, not the declared one: an existing durable is used as it is (never updated).
        long maxDeliver = admin.declareConsumer(consumer).getConsumerConfiguration().getMaxDeliver();
        try {
            MessageConsumer messages = connection.getStreamContext(consumer.stream())
                    .getConsumerContext(consumer.durable())
                    .consume(ConsumeOptions.builder().batchSize(settings.batchSize())
                                    .expiresIn(PULL_EXPIRES.toMillis()).build(),
                            msg -> Deliveries.dispatch(new JetStreamDelivery(msg, maxDeliver), handler,
                                    settings.nakDelay()));
            Consumption consumption = new Consumption() {
                @Override
                public String name() {
                    return consumer.durable();
                }

                @Override
                public void drain(Duration timeout) {
                    messages.stop();
                    long deadline = System.nanoTime() + timeout.toNanos();
                    while (!messages.isFinished() && System.nanoTime() < deadline) {
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            break;
                        }
                    }
                    close();
                }

                @Override
                public void close() {
                    if (consumptions.remove(this)) {
                        stop(messages, consumer.durable());
                        admin.forgetConsumer(consumer);
                    }
                }
            };
            consumptions.add(consumption);
            log.info("consuming {} with durable {} on stream {}", consumer.filterSubject(), consumer.durable(),
                    consumer.stream());
            return consumption;
        } catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot bind durable consumer " + consumer.durable() + " on stream "
                    + consumer.stream() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        consumptions.forEach(Consumption::close);
        deadlines.close();
    }

    private static void stop(MessageConsumer messages, String durable) {
        try {
            messages.close();
        } catch (Exception e) {
            log.debug("closing consumer {}: {}", durable, e.toString());
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private String reason(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof TimeoutException) {
            return "no PubAck within " + settings.publishTimeout().toMillis() + " ms";
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    /** A JetStream delivery: attempt and stream position from the message's metadata. */
    private static final class JetStreamDelivery extends Delivery {

        private final NatsJetStreamMetaData meta;
        private final long maxDeliver;

        JetStreamDelivery(Message message, long maxDeliver) {
            super(message);
            this.meta = message.metaData();
            this.maxDeliver = maxDeliver;
        }

        @Override
        public String messageId() {
            String id = publisherMessageId();
            return id == null ? meta.getStream() + ":" + meta.streamSequence() : id;
        }

        @Override
        public long attempt() {
            return meta.deliveredCount();
        }

        @Override
        public long maxDeliver() {
            return maxDeliver;
        }

        @Override
        public Optional<Instant> storedAt() {
            return Optional.of(meta.timestamp().toInstant());
        }

        @Override
        public String stream() {
            return meta.getStream();
        }

        @Override
        public long streamSequence() {
            return meta.streamSequence();
        }

        @Override
        public Substrate substrate() {
            return Substrate.JETSTREAM;
        }

        @Override
        protected void doAck() {
            message().ack();
        }

        @Override
        protected void doNak(Duration delay) {
            message().nakWithDelay(delay);
        }

        @Override
        protected void doInProgress() {
            message().inProgress();
        }
    }
}
