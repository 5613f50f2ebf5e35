package io.varpulis.observation;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What a convention builds from a few values of a message (its low-cardinality key
 * values, its span name), built once per distinct input and kept (issue 32: built, sorted
 * and concatenated for every message, they were a fifth of observation's cost). Bounded:
 * a service that publishes on a subject per id would otherwise grow it without end; past
 * {@value #MAX_CACHED} inputs they are built each time.
 *
 * @param <K> what the value depends on
 * @param <V> the value
 */
final class BoundedCache<K, V> {

    /** Most inputs kept. */
    static final int MAX_CACHED = 1024;

    private final Map<K, V> cache = new ConcurrentHashMap<>();

    private final Function<K, V> build;

    /**
     * @param build builds the value of one input
     */
    BoundedCache(Function<K, V> build) {
        this.build = build;
    }

    /**
     * @param key the input
     * @return its value
     */
    V get(K key) {
        V known = cache.get(key);
        if (known != null) {
            return known;
        }
        V built = build.apply(key);
        if (cache.size() < MAX_CACHED) {
            cache.put(key, built);
        }
        return built;
    }

}
