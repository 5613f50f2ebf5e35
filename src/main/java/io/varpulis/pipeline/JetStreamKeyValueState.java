package io.varpulis.pipeline;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.Message;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.transport.ClusterTransport;
import org.springframework.scheduling.TaskScheduler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A pipeline's state in a JetStream key-value bucket
 * ({@code varpulis_state_{group}_{pipeline}_{hash}}, one per pipeline): survives the
 * worker's SIGKILL, moves with the pipeline when it is placed on another worker, and
 * stays exact while a NATS server fails over or slows down (SPEC sections 9 and 20). Its
 * parts, one reason to change each:
 * <ul>
 * <li>{@link StateFence}: the bucket has one writer. Opening the state writes the fence
 * expecting the bucket's last sequence; an open below the fence's epoch is refused.</li>
 * <li>{@link WriteChain}: every later write expects the bucket's last message to be the
 * writer's previous write ({@code Nats-Expected-Last-Msg-Id}; from nats-server 2.14, one
 * write at a time expecting the last sequence), so that a write lands only if nobody else
 * wrote since: once a successor opened the bucket, this writer's next write is refused
 * and it is {@link StateFencedException fenced}. After a refusal or a lost PubAck the
 * leader is asked what it holds and only what is missing is sent again, once, under a
 * message id of its own.</li>
 * <li>{@link StateWriter}: sends the chain and settles it, on this state's own serial
 * executor over the worker's shared pool, never holding a lock across a network
 * wait.</li>
 * <li>{@link StateCache}: reads see the writer's last write; a miss reads the key from
 * the stream leader ({@code $JS.API.STREAM.MSG.GET}, never the direct get a replica may
 * answer from behind).</li>
 * </ul>
 * {@link #put} returns once the write is queued; {@link #flush()} completes when every
 * write so far is stored. Values are stored as the NATS key-value API stores them
 * (subject {@code $KV.{bucket}.{key}}, a delete is a {@code KV-Operation: DEL} marker),
 * so {@code nats kv get} reads them; keys live for the bucket's TTL after their last
 * write. A bucket deleted or unreadable under the pipeline ends the state with a
 * {@link StateLostException}. Thread-safe; the route ingress applies one event at a time
 * per pipeline.
 */
public final class JetStreamKeyValueState implements KeyValueState {

    /**
     * The fence key: the highest placement epoch that opened the bucket, and the writer
     * holding it.
     */
    public static final String FENCE_KEY = RESERVED_PREFIX + "fence";

    /**
     * Room left under max_payload for a write's subject and headers (message ids, the
     * delete marker), bytes.
     */
    static final int WRITE_OVERHEAD_BYTES = 1024;

    /**
     * How long writes on the wire may wait while the leader stores none of them before it
     * is looked up (at most the timeout): a leader storing ten writes a second (a 100 ms
     * fsync) stores one every 100 ms, and an election takes about as long, while a leader
     * that stepped down never answers the writes it dropped.
     */
    private static final Duration LOST_AFTER = Duration.ofSeconds(1);

    private final Connection connection;

    private final ClusterTransport transport;

    private final String bucket;

    private final Settings settings;

    private final long epoch;

    private final String writer;

    private final Clock clock = Clock.systemUTC();

    private final StateCache cache;

    private final StateWriter writes;

    /**
     * How a state bucket is made and used.
     *
     * @param ttl how long a key lives after its last write (window state older than this
     * is useless)
     * @param replicas bucket replicas, like the streams'
     * @param timeout how long a leader read or the open's fence write waits for the
     * server, and how long writes may go unanswered while the leader stores nothing
     * before they are looked up and sent again (the publish timeout)
     * @param maxCachedKeys most keys kept in the cache (keys with unconfirmed writes are
     * never evicted)
     */
    public record Settings(Duration ttl, int replicas, Duration timeout, int maxCachedKeys) {

        /**
         * @throws IllegalArgumentException when a value is out of range
         */
        public Settings {
            if (replicas < 1 || maxCachedKeys < 1 || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException(
                        "state settings need replicas >= 1, maxCachedKeys >= 1 and a positive timeout");
            }
        }
    }

    /**
     * The threads every state of a worker shares (beans of the node:
     * {@code varpulisStatePool}, {@code varpulisStateTimer}).
     *
     * @param pool runs each state's work (sending, settling, looking up its leader) one
     * task at a time per state, a thread per state at work: one state waiting holds up no
     * other
     * @param timer schedules the states' look-ups of their leader (never runs them)
     */
    public record Threads(Executor pool, TaskScheduler timer) {
    }

    private JetStreamKeyValueState(Connection connection, ClusterTransport transport, String bucket, long epoch,
            Settings settings, Threads threads, StateLosses losses) {
        this.connection = connection;
        this.transport = transport;
        this.bucket = bucket;
        this.settings = settings;
        this.epoch = epoch;
        this.writer = epoch + "-" + UUID.randomUUID().toString().substring(0, 13);
        this.cache = new StateCache(settings.maxCachedKeys());
        StateFence.Taken fence = StateFence.take(connection, transport, bucket, epoch, writer, settings);
        cache.opened(fence.empty());
        Duration lostAfter = settings.timeout().compareTo(LOST_AFTER) < 0 ? settings.timeout() : LOST_AFTER;
        WriteChain chain = new WriteChain(writer, bucket, fence.sequence(), lostAfter.toNanos(),
                Chaining.of(!connection.getServerInfo().isOlderThanVersion("2.14.0"), fence.atomicPublish()));
        JetStreamManagement jsm = management(connection, lostAfter);
        StateLeader leader = new StateLeader(bucket, () -> StateReads.held(connection, jsm, bucket, lostAfter),
                () -> stepDown(connection, bucket, lostAfter), losses.rollback(), StateLeader.BEHIND_FOR);
        this.writes = new StateWriter(chain, cache, transport, leader, threads, losses.resent(), StateWait.WARN_AFTER);
    }

    /**
     * Opens a pipeline's state: creates the bucket when absent, then takes it over by
     * writing the fence.
     * @param connection the connection (leader reads, bucket management)
     * @param transport publishes the writes (JetStream: PubAcks within the publish
     * timeout)
     * @param bucket the bucket name ({@code [A-Za-z0-9_-]})
     * @param epoch the pipeline's placement epoch: an open below the fence's epoch is
     * refused
     * @param settings TTL, replicas, timeout, cache size
     * @param threads the states' pool and timer
     * @return the open state, owning the bucket
     * @throws StateFencedException when a higher epoch holds the bucket, or it keeps
     * being written by another writer while this one opens it
     * @throws StateUnavailableException when the server did not answer within about six
     * timeouts
     * @throws StateException when the bucket cannot be created or opened (JetStream
     * cannot place it)
     */
    public static JetStreamKeyValueState open(Connection connection, ClusterTransport transport, String bucket,
            long epoch, Settings settings, Threads threads) {
        return open(connection, transport, bucket, epoch, settings, threads, StateLosses.logged());
    }

    /**
     * Opens a pipeline's state, as
     * {@link #open(Connection, ClusterTransport, String, long, Settings, Threads)},
     * counting the writes sent again and saying a bucket that went back or is gone where
     * the node records what the servers lost (issue 43).
     * @param connection the connection (leader reads, bucket management)
     * @param transport publishes the writes
     * @param bucket the bucket name ({@code [A-Za-z0-9_-]})
     * @param epoch the pipeline's placement epoch
     * @param settings TTL, replicas, timeout, cache size
     * @param threads the states' pool and timer
     * @param losses counts writes sent again, records a bucket gone or gone back
     * @return the open state, owning the bucket
     */
    public static JetStreamKeyValueState open(Connection connection, ClusterTransport transport, String bucket,
            long epoch, Settings settings, Threads threads, StateLosses losses) {
        return new JetStreamKeyValueState(connection, transport, bucket, epoch, settings, threads, losses);
    }

    /**
     * @param group the pipeline group
     * @param pipeline the pipeline
     * @return the bucket name of that pipeline's state,
     * {@code varpulis_state_{group}_{pipeline}_{hash}}: the 8 hex digits of the FNV-1a
     * hash of {@code group/pipeline} keep {@code a_b}/{@code c} and {@code a}/{@code b_c}
     * apart
     */
    public static String bucketName(String group, String pipeline) {
        return "varpulis_state_" + group + "_" + pipeline + "_"
                + DurableNames.fnv1a64Hex(group + "/" + pipeline).substring(0, 8);
    }

    /**
     * @param group the pipeline group
     * @param pipeline the pipeline
     * @param partition its partition, or {@link Partitioning#NONE}
     * @return {@link #bucketName(String, String)} for an unpartitioned pipeline; for a
     * partition (its own bucket, fenced by its own placement epoch, SPEC section 11)
     * {@code varpulis_state_{group}_{pipeline}_p{partition}_{hash}}, the hash of
     * {@code group/pipeline/partition}
     */
    public static String bucketName(String group, String pipeline, int partition) {
        if (partition == Partitioning.NONE) {
            return bucketName(group, pipeline);
        }
        PipelineUnit unit = new PipelineUnit(group, pipeline, partition);
        return "varpulis_state_" + group + "_" + pipeline + "_p" + partition + "_"
                + DurableNames.fnv1a64Hex(unit.key()).substring(0, 8);
    }

    /**
     * @return this writer's identity, {@code {epoch}-{random}}: the fence value's
     * {@code writer} and the prefix of its writes' {@code Nats-Msg-Id}s
     */
    public String writer() {
        return writer;
    }

    @Override
    public Optional<byte[]> get(String key) {
        KeyValueState.requireValidKey(key);
        writes.requireOpen();
        Optional<byte[]> cached = cache.get(key, clock.instant());
        if (cached != null) {
            return cached;
        }
        Optional<MessageInfo> stored = writes.read(() -> StateReads.leaderRead(connection, "KV_" + bucket, bucket,
                settings.timeout(), MessageGetRequest.lastForSubject("$KV." + bucket + "." + key), "read " + key));
        writes.requireOpen();
        return stored.filter(StateReads::isValue)
            .map(m -> cache.read(key, m.getData() == null ? new byte[0] : m.getData(),
                    m.getTime().toInstant().plus(settings.ttl())))
            .orElseGet(() -> cache.read(key, null, null));
    }

    @Override
    public void put(String key, byte[] value) {
        writeAll(Collections.singletonMap(key, value == null ? missing(key) : value));
    }

    @Override
    public void delete(String key) {
        writeAll(Collections.singletonMap(key, null));
    }

    /**
     * {@inheritDoc}
     * <p>
     * Visible to {@link #get} at once; sent together, each expecting the one before.
     */
    @Override
    public void writeAll(Map<String, byte[]> batch) {
        Map<String, byte[]> checked = new LinkedHashMap<>();
        batch.forEach((key, value) -> {
            if (value != null && value.length > maxValueBytes()) {
                throw new StateException("value of state key " + key + " is " + value.length + " bytes, over the "
                        + maxValueBytes() + " bytes bucket " + bucket + " can take", null);
            }
            checked.put(KeyValueState.requireValidKey(key), value == null ? null : value.clone());
        });
        writes.requireOpen();
        Instant expiresAt = clock.instant().plus(settings.ttl());
        checked.forEach((key, value) -> cache.written(key, value, expiresAt));
        writes.write(checked);
    }

    /**
     * {@inheritDoc}
     * <p>
     * The future is the last write's: writes are confirmed in order, and a write dropped
     * (closed, fenced, refused by the bucket) fails it together with every write after
     * it, so a flush never succeeds for a write that was dropped between the caller's put
     * and its flush.
     */
    @Override
    public CompletableFuture<Void> flush() {
        return writes.flush();
    }

    @Override
    public long maxValueBytes() {
        long maxPayload = transport.maxPayload();
        return maxPayload <= 0 ? Long.MAX_VALUE : maxPayload - WRITE_OVERHEAD_BYTES;
    }

    /**
     * {@inheritDoc}
     * <p>
     * Reads the fence from the bucket's stream leader: another writer's fence means a
     * later placement opened the bucket. A fence gone with the bucket's TTL was nobody
     * else's (an open writes a new one).
     */
    @Override
    public void verifyOwnership() {
        writes.requireOpen();
        Optional<MessageInfo> current;
        try {
            current = writes.read(() -> StateFence.holder(connection, bucket, settings.timeout()));
        }
        catch (StateFencedException e) {
            writes.end(e);
            throw e;
        }
        String holder = current.map(m -> StateReads.fenceField(m, "writer")).orElse(writer);
        if (!writer.equals(holder)) {
            writes.end(new StateFencedException("state bucket " + bucket + ": placement epoch "
                    + current.map(StateReads::epochOf).orElse(-1L) + " (writer " + holder + ") opened it; this writer ("
                    + writer + ", placement epoch " + epoch + ") no longer owns it and stops", null));
            writes.requireOpen();
        }
    }

    /**
     * Stops using the bucket: writes not confirmed yet fail with a {@link StateException}
     * (they may or may not be stored; their inputs are not acked, so they are applied
     * again wherever the pipeline runs next).
     */
    @Override
    public void close() {
        writes.end(new StateException("state bucket " + bucket + " was closed (pipeline undeployed)", null));
    }

    /**
     * Reads a key's value as the state reads it: from the bucket's stream leader
     * ({@code $JS.API.STREAM.MSG.GET}), never by the direct get that a replica catching
     * up after a restart may answer from behind. For readers other than the state's
     * writer that must see every confirmed write (the main job's state audit).
     * @param connection the connection
     * @param bucket the bucket ({@link #bucketName})
     * @param key the key
     * @param timeout how long the leader may take to answer
     * @return the key's last value, or empty when it has none (never written, or deleted
     * or purged last)
     * @throws StateUnavailableException when the leader did not answer
     * @throws StateLostException when the bucket is gone
     */
    public static Optional<byte[]> readFromLeader(Connection connection, String bucket, String key, Duration timeout) {
        return StateReads
            .leaderRead(connection, "KV_" + bucket, bucket, timeout,
                    MessageGetRequest.lastForSubject("$KV." + bucket + "." + key), "read " + key)
            .filter(StateReads::isValue)
            .map(message -> message.getData() == null ? new byte[0] : message.getData());
    }

    /**
     * The management API of the chain's look-ups: each read waits {@code lostAfter} at
     * most (during an election nobody answers, and the look-up is tried again).
     */
    private static JetStreamManagement management(Connection connection, Duration timeout) {
        try {
            return connection.jetStreamManagement(JetStreamOptions.builder().requestTimeout(timeout).build());
        }
        catch (IOException e) {
            throw new StateException("cannot open the JetStream management API: " + e.getMessage(), e);
        }
    }

    /**
     * Asks the bucket's stream leader to step down
     * ({@code $JS.API.STREAM.LEADER.STEPDOWN.KV_<bucket>}).
     * @return the server's answer, or what failed
     */
    private static String stepDown(Connection connection, String bucket, Duration timeout) {
        try {
            Message reply = connection.request("$JS.API.STREAM.LEADER.STEPDOWN.KV_" + bucket, new byte[0], timeout);
            return reply == null ? "no answer" : new String(reply.getData(), StandardCharsets.UTF_8);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        catch (RuntimeException e) {
            return e.toString();
        }
    }

    private static byte[] missing(String key) {
        throw new IllegalArgumentException("value of key '" + key + "' must not be null; use delete to remove it");
    }

}
