package io.varpulis.jetstream;

import java.util.List;

/**
 * A group of declarations registered as one bean, like Spring AMQP's {@code Declarables}:
 * handy when a list comes from configuration ({@code varpulis.nats.jetstream.streams.*}).
 *
 * @param streams streams to create when absent
 * @param consumers durable consumers to create when absent
 */
public record JetStreamDeclarations(List<StreamDeclaration> streams, List<ConsumerDeclaration> consumers) {

    /**
     * Copies the lists.
     */
    public JetStreamDeclarations {
        streams = List.copyOf(streams);
        consumers = List.copyOf(consumers);
    }
}
