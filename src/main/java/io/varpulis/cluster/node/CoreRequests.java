package io.varpulis.cluster.node;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.MessageHandler;
import io.varpulis.transport.RequestReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Core request/reply with JSON bodies, the way registrations and commands travel between
 * coordinators and workers (SPEC section 3: never through JetStream): requests sent,
 * subjects served, replies published, each with the trace context when observed
 * ({@link RequestReply}).
 */
public final class CoreRequests {

    private static final Logger log = LoggerFactory.getLogger(CoreRequests.class);

    private final Connection connection;

    private final RequestReply requests;

    private final ObjectMapper mapper;

    /**
     * @param connection the node's connection
     * @param requests sends requests and serves subjects (observed or plain)
     * @param mapper writes the JSON bodies and reads them
     */
    public CoreRequests(Connection connection, RequestReply requests, ObjectMapper mapper) {
        this.connection = connection;
        this.requests = requests;
        this.mapper = mapper;
    }

    /**
     * @return the mapper of the bodies
     */
    public ObjectMapper mapper() {
        return mapper;
    }

    /**
     * @return the server this node is connected to now, for what the logs say
     */
    public String connectedUrl() {
        return connection.getConnectedUrl();
    }

    /**
     * Sends a request.
     * @param subject the subject
     * @param body written as JSON
     * @param timeout how long to wait for the reply
     * @return the reply as jnats gives it: a status message when nobody answers, a
     * {@link java.util.concurrent.CancellationException} when no one listens
     * @throws JsonProcessingException when the body cannot be written
     */
    public CompletableFuture<Message> request(String subject, Object body, Duration timeout)
            throws JsonProcessingException {
        return requests.request(connection, subject, mapper.writeValueAsBytes(body), timeout);
    }

    /**
     * @param subject the subject to serve (wildcards allowed)
     * @param handler answers each request, synchronously
     * @return the dispatcher serving it; {@link #close(Dispatcher)} to stop
     */
    public Dispatcher serve(String subject, MessageHandler handler) {
        Dispatcher dispatcher = connection.createDispatcher(requests.serving(handler));
        dispatcher.subscribe(subject);
        return dispatcher;
    }

    /**
     * @param dispatcher a dispatcher from {@link #serve}, or {@code null}; nothing when
     * the connection is closed
     */
    public void close(Dispatcher dispatcher) {
        if (dispatcher != null && connection.getStatus() != Connection.Status.CLOSED) {
            connection.closeDispatcher(dispatcher);
        }
    }

    /**
     * Publishes the reply to a request that asked for one; a failure is logged, the
     * requester times out.
     * @param request the request
     * @param reply written as JSON
     */
    public void reply(Message request, Object reply) {
        if (request.getReplyTo() == null) {
            return;
        }
        try {
            connection.publish(request.getReplyTo(), mapper.writeValueAsBytes(reply));
        }
        catch (Exception e) {
            log.warn("could not reply to {}: {}", request.getSubject(), e.toString());
        }
    }

}
