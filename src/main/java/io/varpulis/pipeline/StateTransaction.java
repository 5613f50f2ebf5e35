package io.varpulis.pipeline;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The writes of one apply, staged over the pipeline's {@link KeyValueState}: the
 * processor reads its own writes at once; {@link #commit()} hands them to the state and
 * returns the flush that confirms them; {@link #discard()} drops them, so an apply that
 * throws leaves no write behind and its retry starts from the same state.
 * <p>
 * Not thread-safe: the route ingress opens one per apply, under the pipeline's
 * one-apply-at-a-time lock.
 */
public final class StateTransaction implements KeyValueState {

    /** A staged delete. */
    private static final byte[] DELETED = new byte[0];

    private final KeyValueState state;

    /**
     * The staged writes in the order their keys were first written, or {@code null} while
     * there is none.
     */
    private Map<String, byte[]> staged;

    /**
     * @param state the pipeline's state
     */
    public StateTransaction(KeyValueState state) {
        this.state = state;
    }

    /**
     * {@inheritDoc}
     * <p>
     * A staged write wins over the state.
     */
    @Override
    public Optional<byte[]> get(String key) {
        byte[] value = staged == null ? null : staged.get(KeyValueState.requireValidKey(key));
        if (value == null) {
            return state.get(key);
        }
        return value == DELETED ? Optional.empty() : Optional.of(value.clone());
    }

    /**
     * {@inheritDoc}
     * <p>
     * Staged until {@link #commit()}; a value over {@link #maxValueBytes()} fails here,
     * in the apply, so that a commit never stores half of an apply's writes.
     */
    @Override
    public void put(String key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value of key '" + key + "' must not be null; use delete to remove it");
        }
        if (value.length > state.maxValueBytes()) {
            throw new StateException("value of state key " + key + " is " + value.length + " bytes, over the "
                    + state.maxValueBytes() + " bytes the store can take (the server's max_payload less the "
                    + "message's subject and headers)", null);
        }
        staged().put(KeyValueState.requireValidKey(key), Arrays.copyOf(value, value.length));
    }

    /**
     * {@inheritDoc}
     * <p>
     * Staged until {@link #commit()}.
     */
    @Override
    public void delete(String key) {
        staged().put(KeyValueState.requireValidKey(key), DELETED);
    }

    @Override
    public long maxValueBytes() {
        return state.maxValueBytes();
    }

    /**
     * Hands the staged writes to the state together ({@link KeyValueState#writeAll}), in
     * the order their keys were first written.
     * @return the state's flush: completes when they (and every earlier write) are stored
     * @throws KeyValueState.StateFencedException when another writer took the state over
     */
    public CompletableFuture<Void> commit() {
        if (staged != null) {
            Map<String, byte[]> writes = new LinkedHashMap<>();
            staged.forEach((key, value) -> writes.put(key, value == DELETED ? null : value));
            staged = null;
            state.writeAll(writes);
        }
        return state.flush();
    }

    /**
     * {@inheritDoc}
     * <p>
     * Inside an apply: hands the writes staged so far to the state now
     * ({@link #commit()}) and returns their confirmation, for a processor that must see a
     * write stored before an effect outside the substrate (a sink's claim before its file
     * write). Those writes stay even if the apply then throws.
     */
    @Override
    public CompletableFuture<Void> flush() {
        return commit();
    }

    @Override
    public void verifyOwnership() {
        state.verifyOwnership();
    }

    /** Drops the staged writes. */
    public void discard() {
        staged = null;
    }

    private Map<String, byte[]> staged() {
        if (staged == null) {
            staged = new LinkedHashMap<>();
        }
        return staged;
    }

}
