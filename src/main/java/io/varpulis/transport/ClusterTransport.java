package io.varpulis.transport;

import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.nats.Substrate;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster's event transport: one API over both substrates, so the route ingress and
 * the heartbeat path are written once and durability is a configuration choice (ADR-007).
 * Create one with {@link ClusterTransports} or take the auto-configured bean.
 * <p>
 * Only event paths use it: routed events and heartbeats. Registration and commands are
 * core request/reply on the connection itself ({@link RequestReply}), and raft and
 * checkpoint subjects never go through JetStream.
 */
public interface ClusterTransport extends AutoCloseable {

    /**
     * @return the substrate this transport carries events on
     */
    Substrate substrate();

    /**
     * Publishes one message. On JetStream the future completes when the stream's PubAck
     * arrives, so many publishes can be outstanding at once (up to
     * {@code varpulis.nats.jetstream.max-outstanding-publishes}; beyond it this call
     * waits for a slot). On core it completes as soon as the bytes are handed to the
     * client.
     * @param message the message
     * @return the receipt; completes exceptionally with {@link PublishException} when the
     * event was not confirmed (no PubAck within the publish timeout, no stream for the
     * subject, stream refused it), never reporting an unconfirmed event as published. Its
     * {@link PublishException#kind() kind} says whether the broker was away (retry with
     * the same message id) or refused the message; after a timeout its
     * {@link PublishException#late() late()} completes should the PubAck still come.
     */
    CompletableFuture<PublishReceipt> publish(OutboundMessage message);

    /**
     * Publishes messages to one stream as a JetStream atomic batch (nats-server 2.12+,
     * the stream created with {@code allow_atomic}): the stream stores all of them, at
     * consecutive sequences, or none. Only the first may carry an expected last sequence
     * (the server checks it for the batch); none may expect a last message id. One
     * message is published as {@link #publish(OutboundMessage)} does.
     * @param messages the batch, in order
     * @return the receipt of the last message (its sequence is the batch's last); fails
     * as {@link #publish(OutboundMessage)} does, for the whole batch
     * @throws IllegalArgumentException when a message other than the first expects a
     * sequence, or any expects a message id
     */
    default CompletableFuture<PublishReceipt> publishAtomically(List<OutboundMessage> messages) {
        if (messages.size() == 1) {
            return publish(messages.get(0));
        }
        return CompletableFuture.failedFuture(new PublishException(messages.get(0).subject(),
                "atomic batches are JetStream's (substrate " + substrate() + ")", null, PublishException.Kind.REFUSED,
                null));
    }

    /**
     * @return the largest message the connected server accepts, headers included (its
     * {@code max_payload}, bytes), or -1 when unknown (before the first connection, or a
     * transport that does not say)
     */
    default long maxPayload() {
        return -1;
    }

    /**
     * Starts consuming. On JetStream the durable pull consumer is created if absent
     * (never updated) and messages are pulled in batches; on core the filter subject is
     * subscribed with the durable name as queue group, so the same consumer in two
     * processes splits the events instead of doubling them.
     * @param consumer the consumer (stream, durable, filter subject, ack and delivery
     * limits)
     * @param handler receives each delivery and owns its acknowledgement
     * @return the running consumption; close it to stop
     * @throws IllegalStateException when the consumer cannot be created or bound
     */
    Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler);

    /**
     * Stops the transport's consumptions. Does not close the connection, which belongs to
     * its creator.
     */
    @Override
    void close();

}
