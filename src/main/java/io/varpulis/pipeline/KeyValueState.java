package io.varpulis.pipeline;

import java.util.Optional;

/**
 * A pipeline's keyed state, which survives a restart of its worker on JetStream.
 * <p>Keys are NATS key-value keys: letters, digits and {@code - _ = / .}, not starting or ending with {@code .}.
 * Values are opaque bytes (processors store JSON).
 */
public interface KeyValueState {

    /**
     * Reads a key.
     *
     * @param key the key
     * @return the value, or empty when the key is absent or deleted
     * @throws StateException when the store cannot be read
     */
    Optional<byte[]> get(String key);

    /**
     * Writes a key.
     *
     * @param key   the key
     * @param value the value's bytes
     * @throws StateException when the store did not confirm the write
     */
    void put(String key, byte[] value);

    /**
     * Deletes a key; absent keys are ignored.
     *
     * @param key the key
     * @throws StateException when the store did not confirm the delete
     */
    void delete(String key);

    /**
     * Raised when the state store fails; the route ingress treats it like any apply failure (nak, then park).
     */
    class StateException extends RuntimeException {
        /**
         * @param message what failed, on which key
         * @param cause   the underlying error
         */
        public StateException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
