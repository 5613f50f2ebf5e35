package io.varpulis.observation;

import io.micrometer.common.KeyValues;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The low-cardinality key values of a convention, built once per distinct tag set and kept (issue 32: built and
 * sorted for every message, they were a fifth of observation's cost). Bounded: a service that publishes on a subject
 * per id would otherwise grow it without end; past {@value #MAX_CACHED} tag sets they are built each time.
 *
 * @param <K> what the key values depend on (a record)
 */
final class KeyValuesCache<K> {

    /** Most tag sets kept. */
    static final int MAX_CACHED = 1024;

    private final Map<K, KeyValues> cache = new ConcurrentHashMap<>();
    private final Function<K, KeyValues> build;

    /**
     * @param build builds the key values of one tag set
     */
    KeyValuesCache(Function<K, KeyValues> build) {
        this.build = build;
    }

    /**
     * @param key the tag set
     * @return its key values
     */
    KeyValues get(K key) {
        KeyValues known = cache.get(key);
        if (known != null) {
            return known;
        }
        KeyValues built = build.apply(key);
        if (cache.size() < MAX_CACHED) {
            cache.put(key, built);
        }
        return built;
    }
}
