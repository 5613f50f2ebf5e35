package io.varpulis.pipeline;

import io.nats.client.Connection;

import java.time.Duration;

/**
 * Opens the durable state of a deployed pipeline.
 */
@FunctionalInterface
public interface KeyValueStateFactory {

    /**
     * @param group    the pipeline group
     * @param pipeline the pipeline
     * @return its state
     * @throws KeyValueState.StateException when the store cannot be opened
     */
    KeyValueState open(String group, String pipeline);

    /**
     * @return state in memory, lost with the process: what core offers
     */
    static KeyValueStateFactory inMemory() {
        return (group, pipeline) -> new InMemoryKeyValueState();
    }

    /**
     * @param connection the connection
     * @param ttl        how long a key lives after its last write
     * @param replicas   bucket replicas
     * @return state in one JetStream key-value bucket per pipeline, {@code varpulis_state_{group}_{pipeline}}
     */
    static KeyValueStateFactory jetStream(Connection connection, Duration ttl, int replicas) {
        return (group, pipeline) -> new JetStreamKeyValueState(connection,
                JetStreamKeyValueState.bucketName(group, pipeline), ttl, replicas);
    }
}
