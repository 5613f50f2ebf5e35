package io.varpulis.transport;

/**
 * A running consumer: deliveries keep coming until {@link #close()}.
 */
public interface Consumption extends AutoCloseable {

    /**
     * @return the durable consumer name (on core: the queue group)
     */
    String name();

    /**
     * Stops pulling new messages; deliveries already handed out may still be acked or nak'ed. Unacked messages are
     * redelivered after ack_wait on JetStream. Idempotent.
     */
    @Override
    void close();
}
