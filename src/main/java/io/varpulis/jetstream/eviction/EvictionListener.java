package io.varpulis.jetstream.eviction;

/**
 * Told what an {@link EvictionDetector} watches and what it found: the meters
 * ({@code varpulis.events.evicted}) listen.
 */
public interface EvictionListener {

    /** Listens to nothing. */
    EvictionListener NONE = new EvictionListener() {
    };

    /**
     * A consumer is watched (told every round): its counter may be registered at 0.
     * @param consumer the consumer
     */
    default void watching(WatchedConsumer consumer) {
    }

    /**
     * A stream nothing consumes is watched (told every round).
     * @param stream the stream
     */
    default void watchingStream(String stream) {
    }

    /**
     * Events were evicted unconsumed; counted once across the nodes watching.
     * @param evicted what, where, how many
     */
    default void evicted(Evicted evicted) {
    }

}
