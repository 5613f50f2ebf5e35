package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.MessageHandler;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Core request/reply, the way commands and registration travel (SPEC section 3: never
 * through JetStream): a request, and the handler of a served subject. {@link #PLAIN} is
 * jnats as it is. With {@code varpulis.nats.observation-enabled} the auto-configured one
 * is observed (SPEC section 14): the request carries the caller's trace context in its
 * NATS headers and the handler runs in a span that continues it, so a deploy that an API
 * call started is in that call's trace, and a registration is one trace across the worker
 * and the coordinator.
 */
public interface RequestReply {

    /** jnats' request/reply, no header added. */
    RequestReply PLAIN = new RequestReply() {
        @Override
        public CompletableFuture<Message> request(Connection connection, String subject, byte[] body,
                Duration timeout) {
            return connection.requestWithTimeout(subject, body, timeout);
        }

        @Override
        public MessageHandler serving(MessageHandler handler) {
            return handler;
        }
    };

    /**
     * Sends a request.
     * @param connection the connection
     * @param subject the subject ({@code varpulis.cluster.cmd.{worker}.{command}},
     * {@code varpulis.cluster.register})
     * @param body the request's JSON
     * @param timeout how long to wait for the reply
     * @return the reply, as jnats gives it
     * ({@link Connection#requestWithTimeout(String, byte[], Duration)}: a status message
     * when nobody answers, a {@link java.util.concurrent.CancellationException} when no
     * one listens)
     */
    CompletableFuture<Message> request(Connection connection, String subject, byte[] body, Duration timeout);

    /**
     * @param handler answers requests on a served subject (synchronously: its reply is
     * published before it returns)
     * @return the handler to subscribe with
     */
    MessageHandler serving(MessageHandler handler);

}
