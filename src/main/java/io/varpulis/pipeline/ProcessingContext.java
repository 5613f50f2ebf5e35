package io.varpulis.pipeline;

/**
 * What a processor knows about the delivery it is applying.
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
}
