package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.ConsumeOptions;
import io.nats.client.Dispatcher;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.MessageConsumer;
import io.nats.client.PublishOptions;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsJetStreamMetaData;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.nats.Subjects;
import io.varpulis.nats.Substrate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * JetStream: every publish is stored and confirmed by a PubAck, every consumer is a
 * durable pull consumer whose unacked messages come back after ack_wait, up to
 * max_deliver times (ADR-007).
 * <p>
 * Publishing pipelines confirmations: up to {@code maxOutstanding} PubAcks may be awaited
 * at once, which keeps throughput near the raw client's; a full window makes the
 * publisher wait rather than buffer without bound. Heartbeats take no slot: a window full
 * of slow PubAcks (a slow disk behind a stream's leader, a state writer mending its
 * chain) must never hold a worker's liveness back (SPEC section 9: slow is not dead);
 * they are one message per worker per heartbeat-interval, so they cannot grow without
 * bound.
 * <p>
 * Longer than most: publishing (its PubAck window, back-pressure and late PubAcks) and
 * consuming share the one JetStream context and its settings.
 */
final class JetStreamTransport implements ClusterTransport {

    private static final Logger log = LoggerFactory.getLogger(JetStreamTransport.class);

    /**
     * How long one pull request stays open. A stopped consumer is finished only when its
     * open pull ends, so this bounds how long {@link Consumption#drain} waits on an idle
     * consumer; jnats' default (30 s) made every graceful shutdown of an idle worker last
     * its whole drain-timeout. An empty pull costs one small request per consumer.
     */
    private static final Duration PULL_EXPIRES = Duration.ofSeconds(2);

    private final Connection connection;

    private final JetStream jetStream;

    private final JetStreamAdmin admin;

    private final TransportSettings settings;

    private final Semaphore window;

    private final PubAckDeadlines deadlines;

    private final GivenUpAdvisories advisories;

    private final Set<Consumption> consumptions = ConcurrentHashMap.newKeySet();

    private final StreamLatencies latencies;

    JetStreamTransport(Connection connection, JetStreamAdmin admin, TransportSettings settings,
            StreamLatencies latencies) {
        this.connection = connection;
        this.latencies = latencies;
        this.admin = admin;
        this.settings = settings;
        this.window = new Semaphore(settings.maxOutstandingPublishes());
        try {
            this.jetStream = connection.jetStream();
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot open the JetStream context: " + e.getMessage(), e);
        }
        this.deadlines = new PubAckDeadlines(settings.publishTimeout());
        this.advisories = new GivenUpAdvisories(connection, admin);
    }

    @Override
    public Substrate substrate() {
        return Substrate.JETSTREAM;
    }

    @Override
    public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
        boolean windowed = !Subjects.isHeartbeat(message.subject());
        CompletableFuture<PublishReceipt> full = windowed ? takeSlot(message.subject()) : null;
        return full != null ? full : send(message, windowed);
    }

    /**
     * {@inheritDoc}
     * <p>
     * The messages before the last are plain publishes on this transport's connection,
     * sent once the batch has its slot in the window of outstanding PubAcks; the last is
     * the JetStream publish, under the publish timeout. A batch the server did not
     * receive whole (a leader change, a reconnect, a part refused) is refused at its
     * commit (10176) and stores nothing.
     */
    @Override
    public CompletableFuture<PublishReceipt> publishAtomically(List<OutboundMessage> messages) {
        if (messages.size() == 1) {
            return publish(messages.get(0));
        }
        AtomicBatch batch = new AtomicBatch(messages);
        CompletableFuture<PublishReceipt> full = takeSlot(messages.get(0).subject());
        if (full != null) {
            return full;
        }
        try {
            batch.parts().forEach(part -> connection.publish(part.subject(), headers(part), part.data()));
        }
        catch (RuntimeException e) {
            window.release();
            return CompletableFuture.failedFuture(new PublishException(messages.get(0).subject(), e.getMessage(), e));
        }
        return send(batch.commit(), true);
    }

    /**
     * Takes a slot in the window of outstanding PubAcks.
     * @return {@code null} once taken; else the failure to answer (the window stayed full
     * for the publish timeout)
     */
    private CompletableFuture<PublishReceipt> takeSlot(String subject) {
        try {
            if (window.tryAcquire(settings.publishTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                return null;
            }
            return CompletableFuture.failedFuture(new PublishException(subject,
                    settings.maxOutstandingPublishes() + " PubAcks were outstanding for "
                            + settings.publishTimeout().toMillis() + " ms",
                    null, PublishException.Kind.UNAVAILABLE, null));
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture
                .failedFuture(new PublishException(subject, "interrupted", e, PublishException.Kind.UNAVAILABLE, null));
        }
    }

    /** Publishes, its window slot (when {@code windowed}) already taken. */
    private CompletableFuture<PublishReceipt> send(OutboundMessage message, boolean windowed) {
        String subject = message.subject();
        CompletableFuture<PublishAck> pubAck;
        try {
            pubAck = jetStream.publishAsync(subject, headers(message), message.data(), options(message));
        }
        catch (RuntimeException e) {
            if (windowed) {
                window.release();
            }
            return CompletableFuture.failedFuture(new PublishException(subject, e.getMessage(), e));
        }
        // The deadline fails the caller's future, not jnats' own: a PubAck that comes
        // after the publish timeout (the
        // message sat in the reconnect buffer, the stream elected a leader) still
        // completes pubAck, and late() tells
        // the caller the message was stored after all.
        Pending pending = deadlines.watch(new Pending(subject, pubAck, deadlines.deadlineFromNow(), windowed));
        pubAck.whenComplete(pending);
        return pending;
    }

    @Override
    public long maxPayload() {
        return connection.getMaxPayload();
    }

    private static Headers headers(OutboundMessage message) {
        if (message.headers().isEmpty()) {
            return null;
        }
        Headers headers = new Headers();
        message.headers().forEach(headers::add);
        return headers;
    }

    private static PublishOptions options(OutboundMessage message) {
        if (message.messageId() == null && message.expectedLastSequence() == null
                && message.expectedLastMessageId() == null) {
            return null;
        }
        PublishOptions.Builder options = PublishOptions.builder();
        if (message.messageId() != null) {
            options.messageId(message.messageId());
        }
        if (message.expectedLastSequence() != null) {
            options.expectedLastSequence(message.expectedLastSequence());
        }
        if (message.expectedLastMessageId() != null) {
            options.expectedLastMsgId(message.expectedLastMessageId());
        }
        return options.build();
    }

    /**
     * The caller's receipt; the PubAck's sequence is remembered for the loss checks
     * ({@link io.varpulis.jetstream.StreamSequences}: what this node published and a
     * stream acknowledged, should the servers lose it).
     */
    private PublishReceipt receipt(String subject, PublishAck pa) {
        admin.sequences().published(pa.getStream(), subject, pa.getSeqno());
        return new PublishReceipt(subject, pa.getStream(), pa.getSeqno(), pa.isDuplicate());
    }

    @Override
    public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
        // The server's max_deliver and ack_wait, not the declared ones: an existing
        // durable is used as it is.
        ConsumerConfiguration server = admin.declareConsumer(consumer).getConsumerConfiguration();
        long maxDeliver = server.getMaxDeliver();
        Duration ackWait = server.getAckWait() == null ? Duration.ZERO : server.getAckWait();
        GivenUpAdvisories.Watch givenUp = advisories.watch(consumer, handler, maxDeliver, ackWait);
        // A dispatcher of this consumption's own, closed with it: jnats' consume(handler)
        // makes one per consumer context and only unsubscribes it when the consumer
        // closes, so each pipeline placed on a worker and moved away left a thread behind
        // (issue 43's soak).
        Dispatcher dispatcher = connection.createDispatcher();
        try {
            // The handler hands each message over and returns (the container queues it
            // and keeps it in progress):
            // jnats pulls the next batch as soon as the last one is handed over, so the
            // server's max_ack_pending is
            // what bounds the messages this client holds, and none waits here, untracked,
            // past its ack_wait.
            MessageConsumer messages = connection.getStreamContext(consumer.stream())
                .getConsumerContext(consumer.durable())
                .consume(
                        ConsumeOptions.builder()
                            .batchSize(settings.batchSize())
                            .expiresIn(PULL_EXPIRES.toMillis())
                            .build(),
                        dispatcher, msg -> handler.onDelivery(new JetStreamDelivery(msg, maxDeliver, ackWait)));
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
                        }
                        catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            break;
                        }
                    }
                    close();
                }

                @Override
                public void close() {
                    if (consumptions.remove(this)) {
                        latencies.stopped(consumer.stream(), consumer.durable());
                        stop(messages, consumer.durable());
                        closeDispatcher(dispatcher);
                        givenUp.close();
                        admin.forgetConsumer(consumer);
                    }
                }
            };
            consumptions.add(consumption);
            latencies.consuming(consumer.stream(), consumer.durable());
            log.info("consuming {} with durable {} on stream {}", consumer.filterSubject(), consumer.durable(),
                    consumer.stream());
            return consumption;
        }
        catch (IOException | JetStreamApiException e) {
            closeDispatcher(dispatcher);
            givenUp.close();
            throw new IllegalStateException("cannot bind durable consumer " + consumer.durable() + " on stream "
                    + consumer.stream() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        consumptions.forEach(Consumption::close);
        advisories.close();
        deadlines.close();
    }

    private static void stop(MessageConsumer messages, String durable) {
        try {
            messages.close();
        }
        catch (Exception e) {
            log.debug("closing consumer {}: {}", durable, e.toString());
        }
    }

    private void closeDispatcher(Dispatcher dispatcher) {
        if (dispatcher.isActive() && connection.getStatus() != Connection.Status.CLOSED) {
            connection.closeDispatcher(dispatcher);
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private String reason(Throwable cause) {
        if (cause instanceof TimeoutException) {
            return "no PubAck within " + settings.publishTimeout().toMillis() + " ms";
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    /**
     * One publish waiting for its PubAck, and the caller's future of it: completed once,
     * by the PubAck (or jnats' failure of it) or by its deadline, whichever comes first,
     * and the window's slot given back then. One object and one dependent of jnats'
     * future per publish (issue 14, item 3).
     */
    private static final VarHandle CLAIMED;

    static {
        try {
            CLAIMED = MethodHandles.privateLookupIn(Pending.class, MethodHandles.lookup())
                .findVarHandle(Pending.class, "claimed", int.class);
        }
        catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final class Pending extends CompletableFuture<PublishReceipt>
            implements BiConsumer<PublishAck, Throwable>, PubAckDeadlines.Watched {

        private final String subject;

        private final CompletableFuture<PublishAck> pubAck;

        private final long deadline;

        private final boolean windowed;

        @SuppressWarnings("unused") // set once through CLAIMED
        private volatile int claimed;

        private Pending(String subject, CompletableFuture<PublishAck> pubAck, long deadline, boolean windowed) {
            this.subject = subject;
            this.pubAck = pubAck;
            this.deadline = deadline;
            this.windowed = windowed;
        }

        /** The PubAck came, or jnats failed it. */
        @Override
        public void accept(PublishAck pa, Throwable error) {
            if (error == null) {
                // Late ones too: a slow leader's PubAcks are what SlowLeaders looks for.
                latencies.record(pa.getStream(), System.nanoTime() - (deadline - settings.publishTimeout().toNanos()));
            }
            if (!claim()) {
                return;
            }
            if (error == null) {
                complete(receipt(subject, pa));
            }
            else {
                Throwable cause = unwrap(error);
                fail(new PublishException(subject, reason(cause), cause, PublishException.classify(cause), null));
            }
        }

        @Override
        public long deadline() {
            return deadline;
        }

        /**
         * No PubAck within the publish timeout: failed, with the PubAck still to come as
         * the late receipt.
         */
        @Override
        public void expire() {
            if (pubAck.isDone()) {
                return;
            }
            if (claim()) {
                TimeoutException cause = new TimeoutException();
                fail(new PublishException(subject, reason(cause), cause, PublishException.classify(cause),
                        pubAck.thenApply(late -> receipt(subject, late))));
            }
        }

        /**
         * Claims the outcome (PubAck or deadline, whichever is first) and gives the
         * window's slot back before the caller's future completes, so that code run on
         * its completion may publish again (as the old dependent stage did).
         */
        private boolean claim() {
            if (!CLAIMED.compareAndSet(this, 0, 1)) {
                return false;
            }
            if (windowed) {
                window.release();
            }
            return true;
        }

        /**
         * Fails the caller's future as a dependent stage would (wrapped in a
         * {@link CompletionException}).
         */
        private void fail(PublishException error) {
            completeExceptionally(new CompletionException(error));
        }

    }

    /** A JetStream delivery: attempt and stream position from the message's metadata. */
    private static final class JetStreamDelivery extends Delivery {

        private final NatsJetStreamMetaData meta;

        private final long maxDeliver;

        private final Duration ackWait;

        JetStreamDelivery(Message message, long maxDeliver, Duration ackWait) {
            super(message);
            this.meta = message.metaData();
            this.maxDeliver = maxDeliver;
            this.ackWait = ackWait;
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
        public Duration ackWait() {
            return ackWait;
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
