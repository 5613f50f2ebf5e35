package io.varpulis.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import java.util.function.Function;

/**
 * The low-cardinality key values of one of the substrate's observation contexts, held as
 * the convention returned them (issue 32). Micrometer's context copies each key value
 * into a concurrent map when the observation stops and builds and sorts a new
 * {@link KeyValues} every time a handler reads them (the meter handler, the tracing
 * handler): for a message, that was most of what observation cost beyond Micrometer's own
 * start and stop. A context holds the convention's instance (the default conventions' are
 * built once per tag set) and gives it back as it is; anything else added or removed one
 * by one (an {@code ObservationFilter}) moves them into Micrometer's map first, so every
 * reader sees what it would have seen.
 */
final class HeldKeyValues {

    private static final KeyValues NONE = KeyValues.empty();

    private KeyValues held;

    private boolean moved;

    /**
     * @param keyValues what the convention returned
     * @return whether they were held (else the caller adds them to Micrometer's map)
     */
    synchronized boolean hold(KeyValues keyValues) {
        if (moved) {
            return false;
        }
        // The default conventions give nothing before the observation stops, then their
        // whole set once.
        held = held == null || held == NONE ? keyValues : keyValues == NONE ? held : held.and(keyValues);
        return true;
    }

    /**
     * Moves what is held into Micrometer's map, before one key value is added or removed
     * there.
     * @param intoMap adds key values to Micrometer's map
     */
    synchronized void move(Function<KeyValues, ?> intoMap) {
        if (!moved) {
            moved = true;
            if (held != null) {
                intoMap.apply(held);
                held = null;
            }
        }
    }

    /**
     * @param fromMap Micrometer's map's key values (the context's {@code super} method)
     * @return the key values: the held instance, or the map's once moved
     */
    synchronized KeyValues get(java.util.function.Supplier<KeyValues> fromMap) {
        if (moved) {
            return fromMap.get();
        }
        return held == null ? KeyValues.empty() : held;
    }

    /**
     * @param key a key
     * @param fromMap Micrometer's map's lookup
     * @return its key value, or {@code null}
     */
    synchronized KeyValue get(String key, Function<String, KeyValue> fromMap) {
        if (moved) {
            return fromMap.apply(key);
        }
        if (held != null) {
            for (KeyValue keyValue : held) {
                if (keyValue.getKey().equals(key)) {
                    return keyValue;
                }
            }
        }
        return null;
    }

}
