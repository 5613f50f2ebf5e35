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
     * Graceful stop: stops pulling, lets the messages already delivered to this client
     * reach the handler (up to the timeout), then closes. Whatever the handler did not
     * ack is redelivered.
     * @param timeout how long to wait for buffered messages, at most
     */
    void drain(java.time.Duration timeout);

    /**
     * Stops pulling new messages; deliveries already handed out may still be acked or
     * nak'ed. Unacked messages are redelivered after ack_wait on JetStream. Idempotent.
     */
    @Override
    void close();

}
