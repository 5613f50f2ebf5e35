package io.varpulis.pipeline;

import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Pattern;

/**
 * A {@link KeyValueState} held in memory: the state of pipelines on the core substrate, and of tests.
 * <p>It does not survive its process. It validates keys with the NATS key-value rule, so a key that a JetStream
 * bucket would reject fails here too, in a unit test rather than on a broker. Thread-safe; values are copied in and
 * out, so a caller mutating an array never changes what is stored.
 */
public final class InMemoryKeyValueState implements KeyValueState {

    /** The NATS key-value key rule of {@link KeyValueState}: these characters, dot-separated non-empty tokens. */
    private static final Pattern VALID_KEY = Pattern.compile("[-/_=a-zA-Z0-9]+(\\.[-/_=a-zA-Z0-9]+)*");

    private final ConcurrentMap<String, byte[]> values = new ConcurrentHashMap<>();

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when the key is not a valid NATS key-value key
     */
    @Override
    public Optional<byte[]> get(String key) {
        return Optional.ofNullable(values.get(validKey(key))).map(byte[]::clone);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when the key is not a valid NATS key-value key, or the value is {@code null}
     */
    @Override
    public void put(String key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value of key '" + key + "' must not be null; use delete to remove it");
        }
        values.put(validKey(key), Arrays.copyOf(value, value.length));
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when the key is not a valid NATS key-value key
     */
    @Override
    public void delete(String key) {
        values.remove(validKey(key));
    }

    private static String validKey(String key) {
        if (key == null || !VALID_KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("invalid state key '" + key + "': NATS key-value keys use letters, "
                    + "digits and - _ = / . and do not start or end with '.'");
        }
        return key;
    }
}
