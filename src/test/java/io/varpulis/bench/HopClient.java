package io.varpulis.bench;

import io.varpulis.jetstream.DurableNames;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;

import java.util.function.IntConsumer;

/**
 * One way of carrying routed events over one route edge, as two processes would: a
 * publisher connection and a consumer connection. The product and the hand-written raw
 * jnats baselines implement it, so that every scenario is written once and runs them side
 * by side.
 */
interface HopClient extends AutoCloseable {

    /**
     * @return the name in the result tables
     */
    String name();

    /**
     * @return the substrate the events travel on
     */
    Substrate substrate();

    /**
     * Starts consuming the edge with its durable consumer (JetStream) or queue group
     * (core).
     * @param edge the edge
     * @param applied receives each event's sequence number after it was applied and
     * acked, on the consumer's thread
     */
    void consume(RouteEdge edge, IntConsumer applied);

    /**
     * Publishes one event. May block while the window of outstanding PubAcks is full.
     * @param subject the edge's subject
     * @param payload the event
     * @param confirmed called once the event is stored (JetStream PubAck) or handed to
     * the client (core), with {@code null}, or with the error when it was not stored
     */
    void publish(String subject, byte[] payload, Confirmation confirmed);

    /**
     * @param edge the edge
     * @return the durable consumer (JetStream) or queue group (core) it consumes the edge
     * with: the route edge's, as a pipeline's
     */
    default String durable(RouteEdge edge) {
        return DurableNames.routeConsumer(edge.to(), edge.subject());
    }

    /** Closes both connections. */
    @Override
    void close();

    /** The outcome of one publish. */
    @FunctionalInterface
    interface Confirmation {

        /**
         * @param error {@code null} when the event was stored (or sent, on core), else
         * why not
         */
        void done(Throwable error);

    }

}
