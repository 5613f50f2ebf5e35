package io.varpulis.jetstream.eviction;

import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.VarpulisJetStream;

import java.util.List;
import java.util.Set;

/**
 * What an {@link EvictionDetector} watches, asked before every round: consumers whose
 * unconsumed events may be evicted, and streams nothing consumes whose every message
 * evicted is a loss ({@code VARPULIS_DLQ}: parked events discarded at max_msgs).
 */
public interface EvictionSources {

    /** Watches nothing (a worker: the coordinators watch the cluster's streams). */
    EvictionSources NONE = new EvictionSources() {
        @Override
        public List<WatchedConsumer> consumers() {
            return List.of();
        }

        @Override
        public Set<String> unconsumedStreams() {
            return Set.of();
        }
    };

    /**
     * @return the consumers to watch now
     */
    List<WatchedConsumer> consumers();

    /**
     * @return the streams whose every eviction counts, nothing consuming them
     */
    Set<String> unconsumedStreams();

    /**
     * What a service watches: the durable consumers it declared (its listeners'), each
     * its own unit, but heartbeats (meant to age out), and {@code VARPULIS_DLQ} when it
     * declared it.
     * @param admin the admin that knows the declarations
     * @return the sources
     */
    static EvictionSources declared(JetStreamAdmin admin) {
        return new EvictionSources() {
            @Override
            public List<WatchedConsumer> consumers() {
                return admin.declaredConsumers()
                    .stream()
                    .filter(c -> !c.stream().equals(VarpulisJetStream.HEARTBEAT_STREAM))
                    .map(EvictionSources::ownUnit)
                    .toList();
            }

            @Override
            public Set<String> unconsumedStreams() {
                return admin.declaredStreams().containsKey(VarpulisJetStream.DLQ_STREAM)
                        ? Set.of(VarpulisJetStream.DLQ_STREAM) : Set.of();
            }
        };
    }

    private static WatchedConsumer ownUnit(ConsumerDeclaration consumer) {
        return new WatchedConsumer(consumer.stream(), consumer.durable(), consumer.filterSubject(), consumer.durable(),
                true);
    }

}
