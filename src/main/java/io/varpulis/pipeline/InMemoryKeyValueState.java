package io.varpulis.pipeline;

import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A {@link KeyValueState} held in memory: the state of pipelines on the core substrate,
 * and of tests.
 * <p>
 * It does not survive its process, and it has one writer by construction, so writes are
 * confirmed at once ({@link #flush()} is complete) and it is never fenced. It validates
 * keys with the NATS key-value rule ({@link KeyValueState#requireValidKey}), so a key
 * that a JetStream bucket would reject fails here too, in a unit test rather than on a
 * broker. Thread-safe; values are copied in and out, so a caller mutating an array never
 * changes what is stored.
 */
public final class InMemoryKeyValueState implements KeyValueState {

    private final ConcurrentMap<String, byte[]> values = new ConcurrentHashMap<>();

    /**
     * {@inheritDoc}
     * @throws IllegalArgumentException when the key is not a valid NATS key-value key
     */
    @Override
    public Optional<byte[]> get(String key) {
        return Optional.ofNullable(values.get(KeyValueState.requireValidKey(key))).map(byte[]::clone);
    }

    /**
     * {@inheritDoc}
     * @throws IllegalArgumentException when the key is not a valid NATS key-value key, or
     * the value is {@code null}
     */
    @Override
    public void put(String key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value of key '" + key + "' must not be null; use delete to remove it");
        }
        values.put(KeyValueState.requireValidKey(key), Arrays.copyOf(value, value.length));
    }

    /**
     * {@inheritDoc}
     * @throws IllegalArgumentException when the key is not a valid NATS key-value key
     */
    @Override
    public void delete(String key) {
        values.remove(KeyValueState.requireValidKey(key));
    }

}
