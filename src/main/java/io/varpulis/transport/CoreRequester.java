package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.impl.Headers;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * jnats' core request-reply: the request goes out with a reply-to inbox of the
 * connection, and the first answer there completes it. Nothing is stored: a listener that
 * is away, or fails, leaves the requester to its timeout.
 */
final class CoreRequester implements Requester {

    private final Connection connection;

    CoreRequester(Connection connection) {
        this.connection = connection;
    }

    @Override
    public CompletableFuture<Message> request(OutboundMessage request, Duration timeout) {
        Headers headers = null;
        if (!request.headers().isEmpty()) {
            headers = new Headers();
            request.headers().forEach(headers::add);
        }
        try {
            // jnats finds a request's timeout only on its cleanup sweep (every 5 s by
            // default): orTimeout ends it on time, and the sweep then forgets it.
            return connection.requestWithTimeout(request.subject(), headers, request.data(), timeout)
                .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (RuntimeException e) {
            // A closed or draining connection, a subject jnats refuses.
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        // Nothing of its own: the connection's inbox belongs to the connection.
    }

}
