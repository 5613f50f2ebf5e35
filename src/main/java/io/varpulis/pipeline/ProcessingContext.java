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
     * Parks one element of the input on its own, for an input that carries several events in one message (a batch):
     * the element that cannot be applied goes to the DLQ with its own death envelope (reason
     * {@code unprocessable}), while the rest of the batch is applied (ADR-007's park, per element). The envelope's
     * {@code payload} is the element as a standalone event, so a replay publishes it back on the input's subject as
     * a single event; its {@code parked_element} is the park's position in this apply (1, 2, ...).
     * <p>The park is published and its PubAck received before the input is acked, like the outputs (emit before
     * ack); if the apply throws, its parks are dropped with its state writes. A redelivered input parks again with
     * the same {@code Nats-Msg-Id} ({@code dlq:{stream}:{sequence}:{n}}), which the DLQ's duplicate window drops. On
     * core the element is logged at ERROR as lost.
     * <p>An input of one event should throw {@link UnprocessableEventException} instead: the whole message is then
     * parked with its original bytes.
     *
     * @param element the element, as the event it would be if published alone
     * @param reason  why it cannot be applied: the envelope's {@code last_error}
     * @throws IllegalArgumentException when the element or reason is {@code null}
     */
    void park(Event element, String reason);
}
