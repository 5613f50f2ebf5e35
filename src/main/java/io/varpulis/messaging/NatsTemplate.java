package io.varpulis.messaging;

import io.nats.client.Message;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import io.varpulis.transport.Requester;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * Publishes events on the substrate (SPEC section 13), in the manner of Spring Kafka's
 * {@code KafkaTemplate}: Jackson 2 serialisation, {@code Nats-Msg-Id} when the caller
 * gives one (the business id, so a retried publish is stored once), headers, and a future
 * of the broker's receipt. Sends a request and awaits its reply (SPEC section 19), in the
 * manner of Spring Kafka's {@code ReplyingKafkaTemplate} and Spring AMQP's
 * {@code convertSendAndReceive}: see {@link #sendAndReceive(OutboundEvent, Duration)}.
 */
public class NatsTemplate {

    private final ClusterTransport transport;

    private final PayloadConverter converter;

    private final Requester requester;

    /**
     * A template that publishes, and has no requests.
     * @param transport the substrate's transport
     * @param converter writes payloads
     */
    public NatsTemplate(ClusterTransport transport, PayloadConverter converter) {
        this(transport, converter, null);
    }

    /**
     * @param transport the substrate's transport
     * @param converter writes payloads and reads replies
     * @param requester sends requests and receives their replies, or {@code null} for a
     * template without requests
     */
    public NatsTemplate(ClusterTransport transport, PayloadConverter converter, Requester requester) {
        this.transport = transport;
        this.converter = converter;
        this.requester = requester;
    }

    /**
     * @param subject the subject
     * @param payload the payload (see {@link OutboundEvent#payload()})
     * @return the receipt, as {@link #send(OutboundEvent)}
     */
    public CompletableFuture<PublishReceipt> send(String subject, Object payload) {
        return send(OutboundEvent.to(subject, payload));
    }

    /**
     * @param event the event
     * @return on jetstream, completes with the PubAck (stream, sequence,
     * {@code duplicate} when the message id was seen within the duplicate window);
     * exceptionally with {@code PublishException} when the event was not stored (no
     * stream captures the subject, no PubAck within
     * {@code varpulis.nats.jetstream.publish-timeout}). On core, completes once the bytes
     * are handed to the client
     * @throws IllegalArgumentException when the payload cannot be written as JSON
     */
    public CompletableFuture<PublishReceipt> send(OutboundEvent event) {
        return transport.publish(message(event));
    }

    /**
     * Sends a request and reads its reply into a type, as
     * {@link #sendAndReceive(OutboundEvent, Class, Duration)}.
     * @param subject the request's subject
     * @param payload the request (see {@link OutboundEvent#payload()})
     * @param type what the reply's JSON is read into (a {@code String} is its UTF-8 text,
     * {@code byte[]} its bytes)
     * @param timeout how long to wait for the reply (a few seconds is usual)
     * @param <T> the reply's type
     * @return the reply, or a failure as {@link #sendAndReceive(OutboundEvent, Duration)}
     * says; a reply that cannot be read into {@code type} fails it with a
     * {@link NatsReplyException} naming the type
     * @throws IllegalArgumentException when the payload cannot be written as JSON
     */
    public <T> CompletableFuture<T> sendAndReceive(String subject, Object payload, Class<T> type, Duration timeout) {
        return sendAndReceive(OutboundEvent.to(subject, payload), type, timeout);
    }

    /**
     * Sends a request with its message id and headers and reads its reply into a type.
     * @param request the request
     * @param type what the reply's JSON is read into
     * @param timeout how long to wait for the reply
     * @param <T> the reply's type
     * @return the reply, or a failure as {@link #sendAndReceive(OutboundEvent, Duration)}
     * says; a reply that cannot be read into {@code type} fails it with a
     * {@link NatsReplyException} naming the type
     * @throws IllegalArgumentException when the payload cannot be written as JSON
     */
    public <T> CompletableFuture<T> sendAndReceive(OutboundEvent request, Class<T> type, Duration timeout) {
        PayloadConverter.Reader reader = converter.reader(type);
        return sendAndReceive(request, timeout).thenApply(reply -> {
            try {
                return type.cast(reader.read(reply.getData() == null ? new byte[0] : reply.getData()));
            }
            catch (IOException | RuntimeException e) {
                throw new NatsReplyException(
                        request.subject(), "the reply on " + reply.getSubject() + " to the " + "request on "
                                + request.subject() + " cannot be read as " + type.getName() + ": " + e.getMessage(),
                        e);
            }
        });
    }

    /**
     * Sends a request and awaits its reply, to a {@link NatsListener} method that returns
     * a value (its return value is the reply) or any other responder, on the template's
     * substrate:
     * <ul>
     * <li>core: jnats' request-reply; the listener's core subscription gets the request
     * with the requester's inbox as its reply-to. Nothing is stored: a listener that is
     * down or fails leaves the request to its timeout.</li>
     * <li>jetstream: the request is stored on the stream that captures its subject (its
     * PubAck awaited), naming {@code varpulis.reply.{requester}.{n}} in its
     * {@code Varpulis-Reply-To} header; the listener's durable consumer gets it, and its
     * reply is stored by the stream the service declares for {@code varpulis.reply.>}
     * before the request is acked; this template reads it with one ordered consumer. A
     * listener that restarts before it answers gets the request again and answers then,
     * within the timeout.</li>
     * </ul>
     * The future completes on a NATS client thread: do not block in what it runs.
     * @param request the request (subject, payload, message id, headers)
     * @param timeout how long to wait for the reply, from now
     * @return the reply as the client received it (subject, headers, data); exceptionally
     * with a {@link NatsReplyTimeoutException} naming the subject and the timeout when no
     * reply came in time, or a {@link NatsReplyException} saying why when there is none
     * to wait for (core: no one subscribes to the subject; jetstream: the request was not
     * stored, or no stream captures {@code varpulis.reply.>})
     * @throws IllegalArgumentException when the payload cannot be written as JSON
     * @throws IllegalStateException when this template was built without a
     * {@link Requester}
     */
    public CompletableFuture<Message> sendAndReceive(OutboundEvent request, Duration timeout) {
        if (requester == null) {
            throw new IllegalStateException("this NatsTemplate was built without a Requester, so it cannot send "
                    + "requests; use the auto-configured template, or pass Requester.core/stored");
        }
        OutboundMessage message = message(request);
        return requester.request(message, timeout).exceptionallyCompose(error -> {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause()
                    : error;
            return CompletableFuture.failedFuture(failure(request.subject(), timeout, cause));
        });
    }

    private static NatsReplyException failure(String subject, Duration timeout, Throwable cause) {
        if (cause instanceof NatsReplyException reply) {
            return reply;
        }
        if (cause instanceof TimeoutException) {
            return new NatsReplyTimeoutException(subject, timeout, cause);
        }
        if (cause instanceof CancellationException) {
            return new NatsReplyException(subject, "no one answers requests on " + subject + ": nothing subscribes to "
                    + "it (no responders), or the connection closed", cause);
        }
        return new NatsReplyException(subject, "the request on " + subject + " got no reply: " + cause.getMessage(),
                cause);
    }

    OutboundMessage message(OutboundEvent event) {
        return new OutboundMessage(event.subject(), converter.write(event.payload()), event.messageId(),
                event.headers(), null, null);
    }

}
