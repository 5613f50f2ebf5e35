package io.varpulis.pipeline;

import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Optional;

/**
 * What a {@link JetStreamKeyValueState} knows of its bucket without asking the server:
 * every key it wrote or read, at most {@code maxKeys} of them, least recently used first
 * out, never one with a write not confirmed yet (its cached value is then the only copy
 * of the writer's view); and whether the cache holds every key the bucket has (a bucket
 * empty when it was opened, until a key is evicted), so that a key it lacks is known
 * absent without a read. A cached key lives until the bucket's TTL after its last write.
 * Thread-safe.
 */
final class StateCache {

    /**
     * A key's value as cached: {@code null} when it is absent.
     *
     * @param value the value, or {@code null}
     * @param expiresAt when the bucket's TTL removes it, or {@code null} (absent)
     * @param pending writes of the key not confirmed yet
     */
    private record Cached(byte[] value, Instant expiresAt, int pending) {

        Optional<byte[]> copy() {
            return value == null ? Optional.empty() : Optional.of(value.clone());
        }

    }

    private final int maxKeys;

    private final LinkedHashMap<String, Cached> keys = new LinkedHashMap<>(64, 0.75f, true);

    private boolean complete;

    /**
     * @param maxKeys keys kept at most (keys with writes not confirmed are never evicted)
     */
    StateCache(int maxKeys) {
        this.maxKeys = maxKeys;
    }

    /**
     * @param key a key
     * @param now the time
     * @return the key's value ({@code Optional.empty()} inside: known absent), or
     * {@code null} when the cache does not know it
     */
    synchronized Optional<byte[]> get(String key, Instant now) {
        Cached cached = keys.get(key);
        if (cached != null && (cached.pending > 0 || cached.expiresAt == null || !now.isAfter(cached.expiresAt))) {
            return cached.copy();
        }
        if (cached != null) {
            keys.remove(key);
        }
        return complete ? Optional.empty() : null;
    }

    /**
     * Caches a value read from the bucket, unless the key was written or read meanwhile.
     * @param key the key
     * @param value its value, or {@code null} when absent
     * @param expiresAt when the bucket's TTL removes it, or {@code null}
     * @return the key's cached value
     */
    synchronized Optional<byte[]> read(String key, byte[] value, Instant expiresAt) {
        Cached cached = keys.get(key);
        if (cached == null) {
            cached = new Cached(value, expiresAt, 0);
            keys.put(key, cached);
            evict();
        }
        return cached.copy();
    }

    /**
     * Caches a write not confirmed yet.
     * @param key the key
     * @param value its value, or {@code null} for a delete
     * @param expiresAt when the bucket's TTL removes it
     */
    synchronized void written(String key, byte[] value, Instant expiresAt) {
        Cached before = keys.get(key);
        keys.put(key, new Cached(value, value == null ? null : expiresAt, (before == null ? 0 : before.pending) + 1));
        evict();
    }

    /**
     * A write of the key was confirmed.
     * @param key the key
     */
    synchronized void confirmed(String key) {
        keys.computeIfPresent(key, (k, cached) -> new Cached(cached.value, cached.expiresAt, cached.pending - 1));
    }

    /**
     * @param empty whether the bucket held no key when it was opened
     */
    synchronized void opened(boolean empty) {
        complete = empty;
    }

    /** Forgets everything: the next reads go to the bucket. */
    synchronized void clear() {
        keys.clear();
        complete = false;
    }

    private void evict() {
        Iterator<Cached> eldest = keys.values().iterator();
        while (keys.size() > maxKeys && eldest.hasNext()) {
            if (eldest.next().pending == 0) {
                eldest.remove();
                complete = false;
            }
        }
    }

}
