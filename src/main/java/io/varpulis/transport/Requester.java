package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.varpulis.jetstream.JetStreamAdmin;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Sends a request and completes with its reply, the way a service's
 * {@code NatsTemplate.sendAndReceive} travels to a {@code @NatsListener} on the same
 * substrate (SPEC section 19), in the manner of Spring Kafka's
 * {@code ReplyingKafkaTemplate}:
 * <ul>
 * <li>{@link #core(Connection) core}: jnats' request-reply (the request's reply-to is an
 * inbox of the connection, the listener's core subscription answers there);</li>
 * <li>{@link #stored(Connection, JetStreamAdmin) stored}, on jetstream: the request is
 * published on its stream (PubAck awaited) naming its reply subject in the
 * {@value #REPLY_TO_HEADER} header; the listener publishes its reply there, where a
 * declared stream stores it, and the requester reads it with one ordered consumer. A
 * listener that restarts before it answers gets the request again and answers then, while
 * the requester waits.</li>
 * </ul>
 * Commands and registration between cluster nodes are core request/reply of their own
 * ({@link RequestReply}). With {@code varpulis.nats.observation-enabled} the
 * auto-configured requester is observed (SPEC section 14).
 */
public interface Requester extends AutoCloseable {

    /**
     * The header a request names its reply subject in, read by the listener that answers
     * it (a stored request's only way to say it: a JetStream delivery's reply-to is its
     * ack subject).
     */
    String REPLY_TO_HEADER = "Varpulis-Reply-To";

    /**
     * Sends a request.
     * @param request the request: subject, payload, headers, and on jetstream its
     * {@code Nats-Msg-Id} (so a retried request is stored once)
     * @param timeout how long to wait for the reply, from now (on jetstream this includes
     * the request's PubAck)
     * @return completes with the reply; exceptionally with a
     * {@link java.util.concurrent.TimeoutException} after the timeout, a
     * {@link java.util.concurrent.CancellationException} when no one subscribes to the
     * subject (core: no responders), a {@link PublishException} when the request was not
     * stored (jetstream), an {@link IllegalStateException} naming the fix when no stream
     * captures the reply subjects (jetstream)
     */
    CompletableFuture<Message> request(OutboundMessage request, Duration timeout);

    /**
     * Stops receiving replies; the requests still waiting fail.
     */
    @Override
    void close();

    /**
     * @param connection the connection
     * @return jnats' core request-reply
     */
    static Requester core(Connection connection) {
        return new CoreRequester(connection);
    }

    /**
     * @param connection the connection
     * @param admin finds the stream that captures the reply subjects
     * @return the stored request-reply, which starts its reply consumer on the first
     * request
     */
    static Requester stored(Connection connection, JetStreamAdmin admin) {
        return new StoredRequester(connection, admin);
    }

}
