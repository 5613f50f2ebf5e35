package io.varpulis.pipeline;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * A pipeline's keyed state, which survives a restart of its worker on JetStream, and
 * stays exact when its worker or a NATS server fails over (SPEC section 9).
 * <p>
 * The contract every implementation keeps:
 * <ul>
 * <li><b>Read your writes.</b> {@link #get} sees the pipeline's own last {@link #put} or
 * {@link #delete} at once, before it is stored: the pipeline owns a cache of what it
 * wrote, and a key it has not touched is read from the store's leader, never from a
 * replica that may lag behind.</li>
 * <li><b>Write behind, confirmed before the ack.</b> {@link #put} and {@link #delete}
 * return at once; {@link #flush()} completes when every write made so far is stored. The
 * route ingress acks an input only after the flush that follows its apply (like emit
 * before ack: a crash between the two would otherwise lose the write).</li>
 * <li><b>One writer, fenced.</b> Every write carries the revision the writer expects (on
 * JetStream the bucket's last sequence, {@code Nats-Expected-Last-Sequence}): a write
 * that finds the store changed by someone else is refused, and the writer is then
 * {@link StateFencedException fenced}: it stops instead of overwriting. A state is opened
 * with the placement epoch of its pipeline
 * ({@link KeyValueStateFactory#open(String, String, long)}); the store keeps the highest
 * epoch that opened it, an open with a lower one is refused, and an open with the same or
 * a higher one takes the state over from every earlier opener, whose next write is then
 * refused.</li>
 * </ul>
 * Keys are NATS key-value keys: letters, digits and {@code - _ = / .}, not starting or
 * ending with {@code .}; keys starting with {@value #RESERVED_PREFIX} are the state's
 * own. Values are opaque bytes (processors store JSON).
 * <p>
 * The route ingress hands a processor a {@link StateTransaction} over this state, so that
 * an apply that throws leaves no write behind; a processor only calls {@link #get},
 * {@link #put} and {@link #delete}.
 */
public interface KeyValueState extends AutoCloseable {

    /**
     * Keys starting with this are the state's own (the fence); processors cannot use
     * them.
     */
    String RESERVED_PREFIX = "_varpulis.";

    /** The NATS key-value key rule: these characters, dot-separated non-empty tokens. */
    Pattern VALID_KEY = Pattern.compile("[-/_=a-zA-Z0-9]+(\\.[-/_=a-zA-Z0-9]+)*");

    /**
     * Reads a key.
     * @param key the key
     * @return the value, or empty when the key is absent or deleted
     * @throws StateUnavailableException when the store did not answer (the ingress
     * retries the apply later)
     * @throws StateFencedException when another writer took the state over
     * @throws StateException when the store cannot be read for another reason
     * @throws IllegalArgumentException when the key is not a valid key
     */
    Optional<byte[]> get(String key);

    /**
     * Writes a key: visible to {@link #get} at once, stored in the background, confirmed
     * by {@link #flush()}.
     * @param key the key
     * @param value the value's bytes
     * @throws StateFencedException when another writer took the state over
     * @throws StateException when the value can never be stored (larger than the server's
     * max_payload)
     * @throws IllegalArgumentException when the key is not a valid key or the value is
     * {@code null}
     */
    void put(String key, byte[] value);

    /**
     * Deletes a key; absent keys are ignored. Like {@link #put}, confirmed by
     * {@link #flush()}.
     * @param key the key
     * @throws StateFencedException when another writer took the state over
     * @throws IllegalArgumentException when the key is not a valid key
     */
    void delete(String key);

    /**
     * Writes several keys at once, in order: the writes of one apply, which a store may
     * send together. Like {@link #put} and {@link #delete}, confirmed by
     * {@link #flush()}.
     * @param writes key to value, a {@code null} value deleting the key
     * @throws StateFencedException when another writer took the state over
     * @throws IllegalArgumentException when a key is not a valid key
     */
    default void writeAll(Map<String, byte[]> writes) {
        writes.forEach((key, value) -> {
            if (value == null) {
                delete(key);
            }
            else {
                put(key, value);
            }
        });
    }

    /**
     * Confirms the writes made so far.
     * @return completes when every write made before this call is stored (at once for
     * state in memory); completes exceptionally with {@link StateFencedException} when
     * another writer took the state over (the writes were not stored and this state
     * refuses any further use), or with {@link StateException} when a write was refused
     * (its inputs are applied again from the store). While the store is unavailable it
     * does not fail: the writes are retried until they are stored, the state is fenced,
     * or it is closed.
     */
    default CompletableFuture<Void> flush() {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Asks the store whether this state's writer still owns it, for a worker that may
     * have been paused (SPEC section 9: a process that may have been paused assumes it
     * lost its lease until it proves otherwise). On JetStream it reads the bucket's fence
     * from the stream leader; state in memory is always owned.
     * @throws StateFencedException when a later placement opened the state (this state
     * then refuses any use)
     * @throws StateUnavailableException when the store did not answer
     */
    default void verifyOwnership() {
    }

    /**
     * Stops using the state (the pipeline was undeployed): writes not confirmed yet fail
     * their flush, and later use fails. Nothing to do for state in memory.
     */
    @Override
    default void close() {
    }

    /**
     * @return the largest value {@link #put} can store, bytes (on JetStream the server's
     * max_payload less the message's subject and headers); unbounded in memory
     */
    default long maxValueBytes() {
        return Long.MAX_VALUE;
    }

    /**
     * @param key a key
     * @return the key
     * @throws IllegalArgumentException when it is not a NATS key-value key, or is
     * reserved
     */
    static String requireValidKey(String key) {
        if (key == null || !VALID_KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("invalid state key '" + key + "': NATS key-value keys use letters, "
                    + "digits and - _ = / . and do not start or end with '.'");
        }
        if (key.startsWith(RESERVED_PREFIX)) {
            throw new IllegalArgumentException("state key '" + key + "' is reserved: keys starting with "
                    + RESERVED_PREFIX + " belong to the state itself");
        }
        return key;
    }

    /**
     * Raised when the state store fails; the route ingress treats it like any apply
     * failure (nak, then park).
     */
    class StateException extends RuntimeException {

        /**
         * @param message what failed, on which key
         * @param cause the underlying error
         */
        public StateException(String message, Throwable cause) {
            super(message, cause);
        }

    }

    /**
     * The store did not answer (no responders during an election, a timeout, a
     * reconnecting connection): not the event's fault. The route ingress applies the
     * event again later, keeping the delivery in progress, and never spends a delivery of
     * its max_deliver budget on it (SPEC section 9).
     */
    class StateUnavailableException extends StateException {

        /**
         * @param message what failed, on which key
         * @param cause the underlying error
         */
        public StateUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }

    }

    /**
     * Another writer owns the state now: a later open (a higher or equal placement epoch)
     * or a write this state did not make. This writer must stop: the route ingress stops
     * the pipeline on this worker, logs why at ERROR, and leaves its unacked events for
     * the rightful owner (never a nak loop, never a park).
     */
    class StateFencedException extends StateException {

        /**
         * @param message who holds the state and why this writer lost it
         * @param cause the refused write, or {@code null}
         */
        public StateFencedException(String message, Throwable cause) {
            super(message, cause);
        }

    }

    /**
     * The state's store is gone or cannot be read (its bucket deleted under the running
     * pipeline, SPEC section 20): this writer stops as a fenced one does, before any
     * further effect, and says so at ERROR naming the bucket; the pipeline runs again
     * once it is placed again, on a new bucket.
     */
    class StateLostException extends StateFencedException {

        /**
         * @param message which bucket, and what the server said
         * @param cause the failed read, or {@code null}
         */
        public StateLostException(String message, Throwable cause) {
            super(message, cause);
        }

    }

}
