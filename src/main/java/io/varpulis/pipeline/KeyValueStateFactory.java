package io.varpulis.pipeline;

import io.micrometer.core.instrument.Counter;
import io.nats.client.Connection;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.transport.ClusterTransport;

/**
 * Opens the durable state of a deployed pipeline, fenced by the pipeline's placement
 * epoch (SPEC section 9): the store keeps the highest epoch that opened it; an open with
 * a lower epoch is refused (a worker that was thought dead and is placed again from a
 * stale command), and an open with the same or a higher epoch takes the state over from
 * every earlier opener, whose next write is refused so that it stops instead of
 * overwriting its successor.
 */
@FunctionalInterface
public interface KeyValueStateFactory {

    /**
     * The epoch of a deployment outside a coordinator's placement (an embedding
     * application, a test): every open with it takes the state over from the previous
     * opener (the last opener wins), and it is refused once a positive epoch opened the
     * state.
     */
    long NO_PLACEMENT_EPOCH = 0;

    /**
     * @param group the pipeline group
     * @param pipeline the pipeline
     * @param partition the partition (its own state, SPEC section 11), or
     * {@link Partitioning#NONE}
     * @param epoch the placement epoch of this deployment of the pipeline or partition
     * ({@link #NO_PLACEMENT_EPOCH} when unknown)
     * @return its state, owned by the caller until closed
     * @throws KeyValueState.StateFencedException when a higher epoch holds the state
     * @throws KeyValueState.StateUnavailableException when the store did not answer
     * @throws KeyValueState.StateException when the store cannot be opened
     */
    KeyValueState open(String group, String pipeline, int partition, long epoch);

    /**
     * @return state in memory, lost with the process: what core offers
     */
    static KeyValueStateFactory inMemory() {
        return (group, pipeline, partition, epoch) -> new InMemoryKeyValueState();
    }

    /**
     * @param connection the connection (leader reads, bucket management)
     * @param transport the JetStream transport that publishes the writes
     * @param settings TTL, replicas, timeout and cache size of the buckets
     * @param threads the states' pool and timer
     * @return state in one JetStream key-value bucket per pipeline,
     * {@code varpulis_state_{group}_{pipeline}_{hash}}, or per partition,
     * {@code varpulis_state_{group}_{pipeline}_p{partition}_{hash}} (see
     * {@link JetStreamKeyValueState})
     */
    static KeyValueStateFactory jetStream(Connection connection, ClusterTransport transport,
            JetStreamKeyValueState.Settings settings, JetStreamKeyValueState.Threads threads) {
        return (group, pipeline, partition, epoch) -> JetStreamKeyValueState.open(connection, transport,
                JetStreamKeyValueState.bucketName(group, pipeline, partition), epoch, settings, threads);
    }

    /**
     * As
     * {@link #jetStream(Connection, ClusterTransport, JetStreamKeyValueState.Settings, JetStreamKeyValueState.Threads)},
     * each state's writes sent again counted as
     * {@code varpulis.state.write.retries{pipeline, partition}} (SPEC sections 9 and 20:
     * a slow disk is slowness; after a refused or unconfirmed write only what the leader
     * lacks is sent again, once, and counted).
     * @param connection the connection
     * @param transport the JetStream transport that publishes the writes
     * @param settings TTL, replicas, timeout and cache size of the buckets
     * @param metrics the registry of the retry counters
     * @param threads the states' pool and timer
     * @param rollback records a bucket that went back or is gone under its writer as a
     * loss (issue 43)
     * @return state in one JetStream key-value bucket per pipeline or partition
     */
    static KeyValueStateFactory jetStream(Connection connection, ClusterTransport transport,
            JetStreamKeyValueState.Settings settings, SubstrateMetrics metrics, JetStreamKeyValueState.Threads threads,
            StateRollback rollback) {
        return (group, pipeline, partition, epoch) -> {
            Counter retries = Counter.builder("varpulis.state.write.retries")
                .description("state writes sent again: found missing after a refusal or a lost PubAck")
                .tag("pipeline", pipeline)
                .tag("partition", new PipelineUnit(group, pipeline, partition).partitionTag())
                .register(metrics.registry());
            return JetStreamKeyValueState.open(connection, transport,
                    JetStreamKeyValueState.bucketName(group, pipeline, partition), epoch, settings, threads,
                    new StateLosses(retries::increment, rollback));
        };
    }

}
