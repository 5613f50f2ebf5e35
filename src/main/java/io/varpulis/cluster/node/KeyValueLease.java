package io.varpulis.cluster.node;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueOptions;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.StorageType;
import io.varpulis.jetstream.KeyValueBuckets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * One key of a JetStream key-value bucket held as a lease, the way Stellar Control keeps
 * its leaders in {@code stellar_leader}: taken with {@code create} (only when the key is
 * absent), renewed with {@code update} at the revision this holder last wrote, released
 * with a delete at that revision. Every write names the expected revision, so of two
 * contenders exactly one wins, and a holder that lost the key learns it at its next
 * renewal.
 * <p>
 * Expiry is the server's: the bucket's max_age is the lease TTL, so a holder that stops
 * renewing (killed, cut off from NATS) loses the key TTL after its last write without
 * anyone else's clock being involved. The bucket is created with the configured TTL when
 * absent and never updated; an existing bucket's own max_age is what counts
 * ({@link #ttl()}). Per-message TTLs (nats-server 2.11+) are not used: jnats'
 * {@code update} with an expected revision cannot carry one, and nats-server 2.9 has
 * none. On 2.11 and later the bucket is created with limit markers, so an expiry leaves a
 * delete marker that watchers see at once ({@link #announcesExpiry()}); on 2.9 an expiry
 * is silent and contenders find the key gone when they next try.
 * <p>
 * The holder's own deadline is the time it sent its last successful write plus the TTL,
 * measured on its monotonic clock: the server stored the write after that, so it expires
 * the key no earlier, and a holder that stops acting at its deadline never overlaps its
 * successor. One owner thread writes through it; any thread may ask {@link #isHeld()}.
 */
public final class KeyValueLease {

    /** What a renewal found. */
    public enum Renewal {

        /** Renewed: the lease is held until {@link #deadlineNanos()}. */
        HELD,
        /**
         * Someone else wrote the key (or it expired and was taken): the lease is lost.
         */
        LOST,
        /** The server did not answer; the lease may still be held until the deadline. */
        UNREACHABLE

    }

    private static final Logger log = LoggerFactory.getLogger(KeyValueLease.class);

    /**
     * The server's code for a write whose expected revision is not the key's last one.
     */
    public static final int WRONG_LAST_SEQUENCE = 10071;

    /** The smallest TTL a limit marker may have (nats-server 2.11). */
    private static final Duration MARKER_TTL = Duration.ofSeconds(1);

    private final KeyValue kv;

    private final String key;

    private final Duration ttl;

    private final boolean markers;

    // Written by the owner thread, read by any (isHeld from an HTTP request or a
    // command).
    private volatile long revision;

    private volatile long deadlineNanos;

    private KeyValueLease(KeyValue kv, String key, Duration ttl, boolean markers) {
        this.kv = kv;
        this.key = key;
        this.ttl = ttl;
        this.markers = markers;
    }

    /**
     * How a lease's bucket is made and used.
     *
     * @param ttl the TTL of a new bucket (its max_age): a holder that stops renewing
     * loses the key this long after its last write
     * @param replicas bucket replicas, like the streams'
     * @param requestTimeout how long one key-value request may take
     */
    public record Settings(Duration ttl, int replicas, Duration requestTimeout) {
    }

    /**
     * Opens the lease on one key, creating the bucket when absent (file storage, one
     * version per key, max_age the TTL, limit markers on nats-server 2.11+).
     * @param connection the connection
     * @param bucket the bucket
     * @param key the key this lease holds
     * @param settings the bucket's TTL and replicas, the requests' timeout
     * @param description the bucket's description
     * @return the lease, not held yet
     * @throws IllegalStateException when the bucket cannot be created or opened
     */
    public static KeyValueLease open(Connection connection, String bucket, String key, Settings settings,
            String description) {
        Duration ttl = settings.ttl();
        try {
            KeyValueStatus status = bucket(connection, bucket, ttl, settings.replicas(), description);
            if (!status.getTtl().equals(ttl)) {
                log.warn(
                        "key-value bucket {} exists with max_age {} ms (configured {} ms); leases in it live {} ms, "
                                + "as the bucket says",
                        bucket, status.getTtl().toMillis(), ttl.toMillis(), status.getTtl().toMillis());
            }
            KeyValue kv = KeyValueBuckets.open(connection, bucket,
                    KeyValueOptions.builder().jsRequestTimeout(settings.requestTimeout()).build());
            boolean markers = status.getLimitMarkerTtl() != null && !status.getLimitMarkerTtl().isZero();
            return new KeyValueLease(kv, key, status.getTtl(), markers);
        }
        catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot open key-value bucket " + bucket + ": " + e.getMessage(), e);
        }
    }

    private static KeyValueStatus bucket(Connection connection, String bucket, Duration ttl, int replicas,
            String description) throws IOException, JetStreamApiException {
        KeyValueConfiguration.Builder config = KeyValueConfiguration.builder()
            .name(bucket)
            .maxHistoryPerKey(1)
            .ttl(ttl)
            .storageType(StorageType.File)
            .replicas(replicas)
            .description(description);
        if (connection.getServerInfo().isSameOrNewerThanVersion("2.11.0")) {
            config.limitMarker(MARKER_TTL);
        }
        // Two coordinators starting at once: one creates it, the other uses that one,
        // with its settings.
        return KeyValueBuckets.createIfAbsent(connection.keyValueManagement(), config.build());
    }

    /**
     * @return the TTL the server expires the key by: the bucket's max_age
     */
    public Duration ttl() {
        return ttl;
    }

    /**
     * @return whether an expiry leaves a marker that watchers see (nats-server 2.11+
     * buckets)
     */
    public boolean announcesExpiry() {
        return markers;
    }

    /**
     * @return the bucket, for watching it
     */
    public KeyValue bucket() {
        return kv;
    }

    /**
     * @return the key this lease holds
     */
    public String key() {
        return key;
    }

    /**
     * @return the current entry of the key, empty when it is absent, deleted or expired
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when it refuses
     */
    public Optional<KeyValueEntry> read() throws IOException, JetStreamApiException {
        KeyValueEntry entry = kv.get(key);
        return entry == null || entry.getOperation() != KeyValueOperation.PUT ? Optional.empty() : Optional.of(entry);
    }

    /**
     * Takes the lease when the key is absent (or only a delete marker is left).
     * @param value the holder's value
     * @return {@code true} when it is held now, {@code false} when someone holds it
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when it refuses for another reason
     */
    public boolean tryAcquire(byte[] value) throws IOException, JetStreamApiException {
        long sent = System.nanoTime();
        try {
            held(kv.create(key, value), sent);
            return true;
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Takes the lease over from a holder known to be gone, by writing at the revision it
     * last wrote.
     * @param value the new holder's value
     * @param expectedRevision the revision of the entry being replaced
     * @return {@code true} when it is held now, {@code false} when the key changed
     * meanwhile
     * @throws IOException when the server does not answer
     * @throws JetStreamApiException when it refuses for another reason
     */
    public boolean takeOver(byte[] value, long expectedRevision) throws IOException, JetStreamApiException {
        long sent = System.nanoTime();
        try {
            held(kv.update(key, value, expectedRevision), sent);
            return true;
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Renews a held lease with a new value.
     * @param value the holder's value
     * @return what the renewal found; {@link Renewal#LOST} also when the lease was not
     * held
     */
    public Renewal renew(byte[] value) {
        if (revision == 0) {
            return Renewal.LOST;
        }
        long sent = System.nanoTime();
        try {
            held(kv.update(key, value, revision), sent);
            return Renewal.HELD;
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                revision = 0;
                return Renewal.LOST;
            }
            log.debug("renewal of lease {} refused: {}", key, e.toString());
            return Renewal.UNREACHABLE;
        }
        catch (IOException e) {
            log.debug("renewal of lease {} not answered: {}", key, e.toString());
            return Renewal.UNREACHABLE;
        }
    }

    /**
     * @return whether this holder wrote the key last and its deadline has not passed
     */
    public boolean isHeld() {
        return revision != 0 && System.nanoTime() - deadlineNanos < 0;
    }

    /**
     * @return the revision this holder last wrote, 0 when it holds nothing
     */
    public long revision() {
        return revision;
    }

    /**
     * @return the holder's deadline on {@link System#nanoTime()}: its last successful
     * write's send time plus the TTL
     */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /**
     * Gives the lease up: deletes the key at this holder's revision (a successor's key is
     * never touched), so that another contender takes it at once instead of after the
     * TTL. Failures are logged: the key then expires.
     */
    public void release() {
        if (revision == 0) {
            return;
        }
        try {
            kv.delete(key, revision);
        }
        catch (IOException | JetStreamApiException | RuntimeException e) {
            log.debug("release of lease {} failed ({}); it expires after {} ms", key, e.toString(), ttl.toMillis());
        }
        revision = 0;
    }

    /** Forgets the lease without writing (it was lost, or the holder stepped down). */
    public void forget() {
        revision = 0;
    }

    private void held(long newRevision, long sentNanos) {
        revision = newRevision;
        deadlineNanos = sentNanos + ttl.toNanos();
    }

}
