package io.varpulis.pipeline;

/**
 * What a processor knows about the delivery it is applying, and what it can do besides emitting: park one element
 * of a batch input ({@link #park}).
 */
public interface ProcessingContext {

    /**
     * @return the pipeline group name
     */
    String group();

    /**
     * @return the pipeline name
     */
    String pipeline();

    /**
     * A stable identity of the input message: its {@code Nats-Msg-Id} header when the publisher set one, otherwise
     * {@code {stream}:{stream sequence}} on JetStream. The same on every redelivery, so it can key idempotent updates.
     * On core without a header it is a per-process counter and gives no such guarantee.
     *
     * @return the message id, never {@code null}
     */
    String messageId();

    /**
     * @return the delivery attempt, 1 for the first delivery (always 1 on core)
     */
    long attempt();

    /**
     * @return the pipeline's durable key-value state (a JetStream key-value bucket on JetStream, memory on core)
     */
    KeyValueState state();

    /**
     * Parks one element of the input on its own, for an input that carries several events in one message (a batch,
     * {@link EventBatch}): the element that cannot be applied goes to the DLQ with its own death envelope (reason
     * {@code unprocessable}), while the rest of the batch is applied (ADR-007's park, per element). The envelope's
     * {@code payload} is {@code element}, so a replay publishes it back on the input's subject; its
     * {@code parked_element} is {@code index}.
     * <p>The park is published and its PubAck received before the input is acked, like the outputs (emit before
     * ack); if the apply throws, its parks are dropped with its state writes. The park's {@code Nats-Msg-Id} is
     * {@code dlq:{stream}:{sequence}:{index}}: a redelivered input that parks the same element again is stored once,
     * whichever other elements it parks then.
     * <p>An input of one event should throw {@link UnprocessableEventException} instead: the whole message is then
     * parked with its original bytes.
     *
     * @param index   the element's position in the batch, from 0 ({@link EventBatch.Element#index()})
     * @param element the element as an event: for an element that is not one, a batch of it alone
     *                ({@link EventBatch#alone})
     * @param reason  why it cannot be applied: the envelope's {@code last_error}
     * @throws IllegalArgumentException when the element or reason is {@code null}, the index negative, or that index
     *                                  already parked in this apply
     * @throws IllegalStateException    when called after the apply returned
     */
    void park(int index, Event element, String reason);
}
