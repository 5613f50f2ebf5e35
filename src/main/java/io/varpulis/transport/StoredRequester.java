package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.MessageConsumer;
import io.nats.client.NUID;
import io.nats.client.PublishOptions;
import io.nats.client.StreamContext;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.nats.Subjects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A request stored on its stream and a reply stored on another, so that a requester that
 * waits outlives a listener that restarts before it answers (SPEC section 19).
 * <p>
 * Each request names {@code varpulis.reply.{requester}.{n}} in its
 * {@value Requester#REPLY_TO_HEADER} header; {@code requester} is random per instance, as
 * an inbox's, and {@code n} counts its requests. The listener publishes its reply there
 * (PubAck before its input's ack), the stream that captures {@code varpulis.reply.>}
 * stores it, and one ordered consumer of this instance, filtered on
 * {@code varpulis.reply.{requester}.>} and started on the first request at the stream's
 * next sequence, hands each reply to the request waiting for it. jnats recreates an
 * ordered consumer after a gap or a reconnect from the last sequence it delivered, so a
 * reply stored while this client was disconnected still arrives. A reply that comes after
 * its request timed out (or twice) is dropped, at DEBUG.
 */
final class StoredRequester implements Requester {

    private static final Logger log = LoggerFactory.getLogger(StoredRequester.class);

    private final Connection connection;

    private final JetStreamAdmin admin;

    private final JetStream jetStream;

    private final String replies = Subjects.REPLY_ROOT + "." + NUID.nextGlobal();

    private final AtomicLong sent = new AtomicLong();

    private final Map<String, CompletableFuture<Message>> waiting = new ConcurrentHashMap<>();

    private MessageConsumer consumer;

    private boolean closed;

    StoredRequester(Connection connection, JetStreamAdmin admin) {
        this.connection = connection;
        this.admin = admin;
        try {
            this.jetStream = connection.jetStream();
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot open the JetStream context: " + e.getMessage(), e);
        }
    }

    @Override
    public CompletableFuture<Message> request(OutboundMessage request, Duration timeout) {
        try {
            listen();
        }
        catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        String replySubject = replies + "." + sent.incrementAndGet();
        CompletableFuture<Message> reply = new CompletableFuture<>();
        waiting.put(replySubject, reply);
        reply.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
            .whenComplete((answer, error) -> waiting.remove(replySubject));
        Headers headers = new Headers();
        request.headers().forEach(headers::add);
        headers.put(REPLY_TO_HEADER, replySubject);
        PublishOptions options = request.messageId() == null ? null
                : PublishOptions.builder().messageId(request.messageId()).build();
        try {
            jetStream
                .publishAsync(
                        NatsMessage.builder().subject(request.subject()).headers(headers).data(request.data()).build(),
                        options)
                .whenComplete((stored, error) -> {
                    if (error != null) {
                        reply.completeExceptionally(notStored(request.subject(), error));
                    }
                });
        }
        catch (RuntimeException e) {
            reply.completeExceptionally(notStored(request.subject(), e));
        }
        return reply;
    }

    private static PublishException notStored(String subject, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return new PublishException(subject, "the request was not stored: " + cause.getMessage(), cause);
    }

    /**
     * Starts the reply consumer once: at the reply stream's next sequence, so that it
     * delivers exactly the replies to come, even when jnats recreates it before it
     * delivered any.
     * @throws IllegalStateException naming the fix when no single stream captures the
     * reply subjects, or when the server cannot be asked
     */
    private synchronized void listen() {
        if (closed) {
            throw new IllegalStateException("the requester is closed");
        }
        if (consumer != null) {
            return;
        }
        String filter = replies + ".>";
        try {
            List<String> streams = admin.management().getStreamNames(filter);
            if (streams.size() != 1) {
                throw new IllegalStateException((streams.isEmpty() ? "no stream" : "streams " + streams)
                        + " capture the stored replies' subjects (" + filter + "); declare one stream for "
                        + Subjects.REPLY_ROOT + ".> (varpulis.nats.jetstream.streams.<NAME>.subjects: "
                        + Subjects.REPLY_ROOT + ".>, with a short max-age such as 10m)");
            }
            StreamContext stream = connection.getStreamContext(streams.get(0));
            long next = stream.getStreamInfo().getStreamState().getLastSequence() + 1;
            consumer = stream
                .createOrderedConsumer(new OrderedConsumerConfiguration().filterSubject(filter)
                    .deliverPolicy(DeliverPolicy.ByStartSequence)
                    .startSequence(next))
                .consume(this::received);
            log.info("stored replies of this service's requests arrive on {} in stream {}", filter, streams.get(0));
        }
        catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot start the consumer of the stored replies on " + filter + ": "
                    + e.getMessage() + "; is JetStream reachable?", e);
        }
    }

    private void received(Message reply) {
        CompletableFuture<Message> request = waiting.remove(reply.getSubject());
        if (request == null) {
            log.debug("a reply on {} came after its request ended (timed out, or answered already); dropped",
                    reply.getSubject());
            return;
        }
        request.complete(reply);
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (consumer != null) {
            try {
                consumer.close();
            }
            catch (Exception e) {
                log.debug("closing the stored replies' consumer: {}", e.toString());
            }
            consumer = null;
        }
        IllegalStateException stopped = new IllegalStateException("the requester closed before the reply came");
        waiting.values().forEach(request -> request.completeExceptionally(stopped));
        waiting.clear();
    }

}
