package io.varpulis.pipeline;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamState;
import io.nats.client.support.NatsJetStreamConstants;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.JetStreamErrors;
import io.varpulis.jetstream.KeyValueBuckets;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;
import io.varpulis.support.Backoffs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.backoff.BackOffExecution;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pipeline's state in a JetStream key-value bucket
 * ({@code varpulis_state_{group}_{pipeline}_{hash}}, one per pipeline): survives the
 * worker's SIGKILL, moves with the pipeline when it is placed on another worker, and
 * stays exact while a NATS server fails over (SPEC section 9). How it keeps the
 * {@link KeyValueState} contract:
 * <ul>
 * <li><b>The bucket has one writer, fenced by its last message.</b> Opening the state
 * writes the fence key ({@value #FENCE_KEY}: {@code {"epoch": N, "writer": "...",
 * "opened_at": "..."}}) with {@code Nats-Expected-Last-Sequence} set to the bucket's last
 * sequence. The fence is written as a delete marker with a body
 * ({@code KV-Operation: DEL}), so that key-value clients ({@code kv.get},
 * {@code kv.keys()}, {@code nats kv ls}) see only the pipeline's own keys; it lasts the
 * bucket's TTL after the last open, like any key (a stale writer is fenced by the chain
 * below whatever its age). Every later write expects the bucket's last message to be the
 * writer's previous write ({@code Nats-Expected-Last-Msg-Id}). So a write lands only if
 * nobody else wrote since: once a successor opened the bucket, the earlier writer's next
 * write is refused and it is {@link StateFencedException fenced}. An open whose epoch is
 * below the fence's is refused. Writes are pipelined, each chained to its predecessor's
 * message id (a chain of expected sequences would not do: once one write failed, a later
 * one could land on the sequence another writer's message took).</li>
 * <li><b>Reads see the writer's last write.</b> The state caches every key it wrote or
 * read (at most {@code maxCachedKeys}, never evicting one with an unconfirmed write); a
 * miss reads the key from the stream leader ({@code $JS.API.STREAM.MSG.GET}, never the
 * direct get that a replica may answer from behind). A bucket that held no key when it
 * was opened is read from nowhere at all until a key is evicted.</li>
 * <li><b>Confirmed before the ack.</b> {@link #put} returns once the write is sent;
 * {@link #flush()} completes when every write so far has its PubAck.</li>
 * <li><b>Broker failures are waited out.</b> When a write is not confirmed (no
 * responders, PubAck timeout, a refused expectation), the state stops sending, reads the
 * bucket's last message from the leader, recognises which of its writes were stored after
 * all by their {@code Nats-Msg-Id} ({@code {writer}:{n}}), and sends the rest again; a
 * message it did not write means another writer took over (fenced). Retried until stored,
 * fenced or closed; a write refused for itself (a server limit) twice fails the writes
 * after it, whose inputs are then applied again from the bucket.</li>
 * </ul>
 * Values are stored as the NATS key-value API stores them (subject
 * {@code $KV.{bucket}.{key}}, a delete is a {@code KV-Operation: DEL} marker), so
 * {@code nats kv get} reads them. Keys live for the bucket's TTL after their last write.
 * Thread-safe; the route ingress applies one event at a time per pipeline.
 * <p>
 * One class, longer than most: the write chain, its mending after a broker failure, the
 * cache and the fence all read and change one chain state (the writes in flight, the last
 * confirmed message id) under one lock; split, a mend could race a write and break the
 * chain the fencing rests on.
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

    private static final Logger log = LoggerFactory.getLogger(JetStreamKeyValueState.class);

    /**
     * {@code JSStreamWrongLastSequenceErr}: the bucket's last sequence was not the one
     * the fence expected.
     */
    private static final int WRONG_LAST_SEQUENCE = 10071;

    /**
     * {@code JSStreamWrongLastMsgIDErr}: the bucket's last message was not the write a
     * write expected.
     */
    private static final int WRONG_LAST_MESSAGE_ID = 10070;

    /**
     * "duplicate message id is in process": an earlier copy of the write is being stored
     * (nats-server 2.12).
     */
    private static final int IN_PROCESS = 10158;

    /**
     * How many times the chain's mending waits for a write the server has in process
     * before sending it again.
     */
    private static final int IN_PROCESS_CHECKS = 10;

    /** The sequence a 10071 refusal names: {@code wrong last sequence: N}. */
    private static final Pattern LAST_SEQUENCE = Pattern.compile("wrong last sequence: (\\d+)");

    /**
     * Opens that find the bucket written meanwhile try again this often before giving up.
     */
    private static final int OPEN_ATTEMPTS = 20;

    private static final long FIRST_RETRY_MILLIS = 100;

    private static final long MAX_RETRY_MILLIS = 4000;

    private static final Map<String, String> DELETE_MARKER = Map.of(NatsJetStreamConstants.KV_OPERATION_HEADER_KEY,
            "DEL");

    private final Connection connection;

    private final JetStreamManagement jsm;

    private final ClusterTransport transport;

    private final String bucket;

    private final String stream;

    private final Settings settings;

    private final long epoch;

    private final String writer;

    private final Clock clock = Clock.systemUTC();

    private final StateWriteBackoff backoff;

    private final Threads threads;

    /** Set once by {@link #open}, before the state is used. */
    private volatile StateRollback rollback = StateRollback.logged();

    // Guarded by this.
    private final LinkedHashMap<String, Cached> cache = new LinkedHashMap<>(64, 0.75f, true);

    private final ArrayDeque<Write> unconfirmed = new ArrayDeque<>();

    private long confirmedSequence;

    private String confirmedMessageId;

    private String sentMessageId;

    // The bucket's last sequence the next write expects instead of sentMessageId (once,
    // after a mended chain).
    private Long anchorSequence;

    // The newest write made, confirmed or not: what a flush waits for.
    private Write lastWritten;

    private long writes;

    private boolean recovering;

    private boolean complete;

    private StateFencedException fenced;

    private boolean closed;

    /**
     * How a state bucket is made and used.
     *
     * @param ttl how long a key lives after its last write (window state older than this
     * is useless)
     * @param replicas bucket replicas, like the streams'
     * @param timeout how long a leader read or the open's fence write waits for the
     * server
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
                        "state settings need replicas >= 1, maxCachedKeys >= 1 and a " + "positive timeout");
            }
        }
    }

    /**
     * The threads every state of a worker shares (beans of the node:
     * {@code varpulisStateConfirmExecutor}, {@code varpulisStateRecoveryScheduler}).
     *
     * @param confirm settles every state's writes when their PubAck (or its failure)
     * comes, in order: one thread
     * @param recovery mends every state's broken write chains; the work is rare and short
     * (a few leader reads)
     */
    public record Threads(Executor confirm, TaskScheduler recovery) {
    }

    private JetStreamKeyValueState(Connection connection, ClusterTransport transport, String bucket, long epoch,
            Settings settings, StateWriteBackoff backoff, Threads threads) throws IOException {
        this.backoff = backoff;
        this.threads = threads;
        this.connection = connection;
        this.jsm = connection.jetStreamManagement();
        this.transport = transport;
        this.bucket = bucket;
        this.stream = "KV_" + bucket;
        this.settings = settings;
        this.epoch = epoch;
        this.writer = epoch + "-" + UUID.randomUUID().toString().substring(0, 13);
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
     * @param threads settle the writes and mend the write chain
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
        return open(connection, transport, bucket, epoch, settings, StateWriteBackoff.uncounted(), threads);
    }

    /**
     * Opens a pipeline's state, as
     * {@link #open(Connection, ClusterTransport, String, long, Settings, Threads)}, with
     * the backoff (and retry counter) of its unconfirmed writes.
     * @param connection the connection (leader reads, bucket management)
     * @param transport publishes the writes
     * @param bucket the bucket name ({@code [A-Za-z0-9_-]})
     * @param epoch the pipeline's placement epoch
     * @param settings TTL, replicas, timeout, cache size
     * @param backoff when unconfirmed writes are sent again, counted
     * @param threads settle the writes and mend the write chain
     * @return the open state, owning the bucket
     */
    public static JetStreamKeyValueState open(Connection connection, ClusterTransport transport, String bucket,
            long epoch, Settings settings, StateWriteBackoff backoff, Threads threads) {
        return open(connection, transport, bucket, epoch, settings, backoff, threads, StateRollback.logged());
    }

    /**
     * Opens a pipeline's state, as
     * {@link #open(Connection, ClusterTransport, String, long, Settings, StateWriteBackoff, Threads)},
     * saying where the node records what the servers lost should the bucket go back
     * (issue 43).
     * @param connection the connection (leader reads, bucket management)
     * @param transport publishes the writes
     * @param bucket the bucket name ({@code [A-Za-z0-9_-]})
     * @param epoch the pipeline's placement epoch
     * @param settings TTL, replicas, timeout, cache size
     * @param backoff when unconfirmed writes are sent again, counted
     * @param threads settle the writes and mend the write chain
     * @param rollback says a bucket that went back
     * @return the open state, owning the bucket
     */
    public static JetStreamKeyValueState open(Connection connection, ClusterTransport transport, String bucket,
            long epoch, Settings settings, StateWriteBackoff backoff, Threads threads, StateRollback rollback) {
        try {
            JetStreamKeyValueState state = new JetStreamKeyValueState(connection, transport, bucket, epoch, settings,
                    backoff, threads);
            state.rollback = rollback;
            state.createIfAbsent();
            state.takeOver();
            return state;
        }
        catch (IOException | JetStreamApiException | IllegalStateException e) {
            throw new StateException("cannot open key-value bucket " + bucket + ": " + e.getMessage(), e);
        }
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
        synchronized (this) {
            usable();
            Cached cached = cache.get(key);
            if (cached != null && (cached.pending > 0 || !cached.expired(clock.instant()))) {
                return cached.value();
            }
            if (cached != null) {
                cache.remove(key);
            }
            if (complete) {
                return Optional.empty();
            }
        }
        Optional<MessageInfo> stored = leaderRead(MessageGetRequest.lastForSubject(subject(key)), "read " + key);
        synchronized (this) {
            usable();
            Cached raced = cache.get(key);
            if (raced != null) {
                return raced.value();
            }
            Cached read = stored.filter(StateReads::isValue)
                .map(m -> new Cached(m.getData() == null ? new byte[0] : m.getData(),
                        m.getTime().toInstant().plus(settings.ttl())))
                .orElseGet(() -> new Cached(null, null));
            cache.put(key, read);
            evict();
            return read.value();
        }
    }

    @Override
    public void put(String key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value of key '" + key + "' must not be null; use delete to remove it");
        }
        if (value.length > maxValueBytes()) {
            throw new StateException("value of state key " + key + " is " + value.length + " bytes, over the "
                    + maxValueBytes() + " bytes bucket " + bucket + " can take", null);
        }
        write(KeyValueState.requireValidKey(key), value.clone());
    }

    @Override
    public void delete(String key) {
        write(KeyValueState.requireValidKey(key), null);
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
    public synchronized CompletableFuture<Void> flush() {
        if (fenced != null) {
            return CompletableFuture.failedFuture(fenced);
        }
        return lastWritten == null ? CompletableFuture.completedFuture(null) : lastWritten.confirmed.copy();
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
        synchronized (this) {
            usable();
        }
        Optional<MessageInfo> current = leaderRead(MessageGetRequest.lastForSubject(subject(FENCE_KEY)),
                "read the fence");
        String holder = current.map(m -> StateReads.fenceField(m, "writer")).orElse(writer);
        if (!writer.equals(holder)) {
            fence("placement epoch " + current.map(StateReads::epochOf).orElse(-1L) + " (writer " + holder
                    + ") opened it", null);
            synchronized (this) {
                usable();
            }
        }
    }

    /**
     * Stops using the bucket: writes not confirmed yet fail with a {@link StateException}
     * (they may or may not be stored; their inputs are not acked, so they are applied
     * again wherever the pipeline runs next).
     */
    @Override
    public void close() {
        List<Write> dropped;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            dropped = new ArrayList<>(unconfirmed);
            unconfirmed.clear();
            cache.clear();
        }
        StateException error = new StateException("state bucket " + bucket + " was closed (pipeline undeployed)", null);
        dropped.forEach(w -> w.confirmed.completeExceptionally(error));
    }

    private void write(String key, byte[] value) {
        synchronized (this) {
            usable();
            Cached before = cache.get(key);
            Cached after = new Cached(value, value == null ? null : clock.instant().plus(settings.ttl()));
            after.pending = (before == null ? 0 : before.pending) + 1;
            cache.put(key, after);
            Write write = new Write(key, value, writer + ":" + (++writes));
            unconfirmed.addLast(write);
            lastWritten = write;
            evict();
            if (!recovering) {
                send(write);
            }
        }
    }

    /**
     * Sends one write expecting its predecessor to be the bucket's last message. Called
     * holding the lock.
     */
    private void send(Write write) {
        String previous = sentMessageId;
        Long anchor = anchorSequence;
        anchorSequence = null;
        sentMessageId = write.messageId;
        write.status = Status.SENT;
        OutboundMessage message = new OutboundMessage(subject(write.key),
                write.value == null ? new byte[0] : write.value, write.messageId,
                write.value == null ? DELETE_MARKER : Map.of(), anchor, anchor == null ? previous : null);
        // Settled on the confirm thread, never on the thread that completes the PubAck
        // (jnats' reply dispatcher, the
        // PubAck deadline sweeper): settling takes this state's lock, which a sender may
        // hold while it waits for a slot
        // in the window of outstanding PubAcks that only those threads free.
        transport.publish(message)
            .whenCompleteAsync((receipt, error) -> settled(write, receipt, error), threads.confirm());
    }

    private void settled(Write write, PublishReceipt receipt, Throwable error) {
        PublishException failed = error == null ? null : PublishException.find(error).orElse(null);
        if (failed != null && failed.lateMayCome() && !write.awaitedLate) {
            // No PubAck within the publish timeout is not a refusal: behind a slow disk
            // the write is usually still
            // being stored. Its late PubAck settles it; another copy sent now would only
            // meet it in process (10158),
            // and a backlog sent again and again was issue 30's resend storm. The late
            // PubAck is awaited one timeout
            // more, not until the client gives up on it: a stream leader that stepped
            // down while storing the write
            // dropped it and never answers, and jnats fails such a PubAck only at its
            // request cleanup, minutes later
            // (issue 30: a pipeline stalled that long, silently). Then the chain is
            // looked up and mended.
            write.awaitedLate = true;
            failed.late()
                .orTimeout(settings.timeout().toMillis(), TimeUnit.MILLISECONDS)
                .whenCompleteAsync((late, lateError) -> settled(write, late, lateError), threads.confirm());
            return;
        }
        List<Write> confirmed = new ArrayList<>();
        synchronized (this) {
            if (write.status != Status.SENT) {
                return;
            }
            if (error == null) {
                write.status = Status.STORED;
                write.sequence = receipt.sequence();
                advance(confirmed);
            }
            else {
                write.status = Status.FAILED;
                write.failure = error;
                if (fenced == null && !closed && !recovering) {
                    recovering = true;
                    recoverIn(backoff.nextRetryMillis());
                }
            }
        }
        confirmed.forEach(w -> w.confirmed.complete(null));
    }

    /**
     * Confirms the stored writes at the head of the chain, in order. Called holding the
     * lock.
     */
    private void advance(List<Write> confirmed) {
        while (!unconfirmed.isEmpty() && unconfirmed.peekFirst().status == Status.STORED) {
            Write write = unconfirmed.pollFirst();
            confirmedSequence = Math.max(confirmedSequence, write.sequence);
            confirmedMessageId = write.messageId;
            backoff.confirmed(write);
            Cached cached = cache.get(write.key);
            if (cached != null) {
                cached.pending--;
            }
            confirmed.add(write);
        }
    }

    /**
     * Mends the chain after a write was not confirmed: waits until every sent write
     * settled, finds which were stored after all, and sends the others again. Runs on the
     * recovery thread.
     * <p>
     * The writes stored since the last confirmed one, if all are this writer's, are the
     * first of its unconfirmed writes, in order: each expected its predecessor to be the
     * bucket's last message, so none lands after a message it did not write. So the
     * bucket's last message tells all: when it is the n-th unconfirmed write (n =
     * messages stored since), the first n are stored; anything else means another writer
     * wrote. (Reading each sequence would not do: the bucket keeps one message per key,
     * so a key written twice leaves a gap.)
     */
    private void recover() {
        long from;
        List<Write> pending;
        synchronized (this) {
            if (fenced != null || closed) {
                return;
            }
            if (unconfirmed.stream().anyMatch(w -> w.status == Status.SENT)) {
                recoverIn(FIRST_RETRY_MILLIS);
                return;
            }
            from = confirmedSequence;
            pending = new ArrayList<>(unconfirmed);
        }
        long last;
        try {
            last = jsm.getStreamInfo(stream).getStreamState().getLastSequence();
            if (last < from) {
                // Below a write it confirmed: the servers lost acknowledged writes (issue
                // 43); mending on it would write on silently over what is gone.
                fence(rollback.wentBack(bucket, last, from), null);
                return;
            }
            long stored = last - from;
            if (stored > pending.size()) {
                fence("the bucket holds " + stored + " writes after sequence " + from + ", more than the "
                        + pending.size() + " this writer has not seen confirmed: another writer took it over", null);
                return;
            }
            if (stored > 0) {
                Optional<MessageInfo> lastMessage = leaderRead(MessageGetRequest.forSequence(last),
                        "read sequence " + last);
                String id = lastMessage.map(MessageInfo::getHeaders)
                    .map(h -> h.getFirst(Delivery.MSG_ID_HEADER))
                    .orElse(null);
                if (lastMessage.isEmpty()) {
                    // Gone already (its key written again since: one message per key; or
                    // expired): the fence tells
                    // whether another writer took the bucket over. While it is this
                    // writer's, nobody else could
                    // write (every other writer's write expects its own last message,
                    // which the fence followed), so
                    // the messages since the last confirmed one are this writer's, in
                    // order (issue 30: such a read
                    // made a live owner fence itself).
                    String holder = leaderRead(MessageGetRequest.lastForSubject(subject(FENCE_KEY)), "read the fence")
                        .map(m -> StateReads.fenceField(m, "writer"))
                        .orElse("");
                    if (!writer.equals(holder)) {
                        fence("sequence " + last + " is gone and the fence names writer " + holder, null);
                        return;
                    }
                }
                else if (!pending.get((int) stored - 1).messageId.equals(id)) {
                    fence("sequence " + last + " was written by another writer (message id " + id + ")", null);
                    return;
                }
            }
        }
        catch (StateUnavailableException | IOException e) {
            retryLater(e);
            return;
        }
        catch (JetStreamApiException e) {
            if (JetStreamErrors.isNotFound(e)) {
                fence(rollback.gone(bucket, from), e);
            }
            else {
                retryLater(e);
            }
            return;
        }
        int found = (int) (last - from);
        List<Write> confirmed = new ArrayList<>();
        synchronized (this) {
            if (fenced != null || closed) {
                return;
            }
            for (int i = 0; i < found; i++) {
                pending.get(i).status = Status.STORED;
                pending.get(i).sequence = from + 1 + i;
            }
            advance(confirmed);
            Write head = unconfirmed.peekFirst();
            if (head != null && head.status == Status.FAILED && refusedForItself(head.failure) && head.refusals++ > 0) {
                // Refused twice, and not stored meanwhile: the bucket will not take it.
                refuse(head, confirmed);
                return;
            }
            if (head != null && head.status == Status.FAILED && inProcess(head.failure)
                    && head.inProcessChecks++ < IN_PROCESS_CHECKS) {
                // The server is still storing an earlier copy: wait for it to land rather
                // than send a third.
                recoverIn(backoff.nextRetryMillis());
                if (!confirmed.isEmpty()) {
                    List<Write> done = List.copyOf(confirmed);
                    threads.recovery().schedule(() -> done.forEach(w -> w.confirmed.complete(null)), Instant.now());
                }
                return;
            }
            sentMessageId = confirmedMessageId;
            // The first write sent again expects the sequence just read, not the message
            // id: a server that restarted
            // (or a new stream leader) knows the last message id only when it is in the
            // duplicate window, and would
            // refuse a chain anchored on an older one for ever (10070, nats-server 2.9 to
            // 2.12).
            anchorSequence = last;
            recovering = false;
            backoff.mended(unconfirmed.peekLast());
            for (Write write : unconfirmed) {
                send(write);
            }
        }
        confirmed.forEach(w -> w.confirmed.complete(null));
        log.info("state bucket {}: write chain mended at sequence {} ({} found stored, {} sent again)", bucket, last,
                found, pending.size() - found);
    }

    /** Mends the write chain on the recovery thread, after a wait. */
    private void recoverIn(long millis) {
        threads.recovery().schedule(this::recover, Instant.now().plusMillis(millis));
    }

    private void retryLater(Exception cause) {
        long wait;
        synchronized (this) {
            if (fenced != null || closed) {
                return;
            }
            wait = backoff.nextRetryMillis();
        }
        log.debug("state bucket {}: cannot mend the write chain yet ({}); again in {} ms", bucket, cause.toString(),
                wait);
        recoverIn(wait);
    }

    /**
     * Drops a write the bucket refuses for itself (a server limit) and every write after
     * it, which may depend on it: their flushes fail, the cache is emptied, and their
     * inputs are applied again from the bucket. Called holding the lock; the futures (the
     * confirmed ones and the dropped ones) complete on the recovery thread.
     */
    private void refuse(Write head, List<Write> confirmed) {
        List<Write> dropped = new ArrayList<>(unconfirmed);
        unconfirmed.clear();
        cache.clear();
        complete = false;
        sentMessageId = confirmedMessageId;
        recovering = false;
        StateException error = new StateException(
                "bucket " + bucket + " refused the write of key " + head.key + ": " + head.failure.getMessage(),
                head.failure);
        threads.recovery().schedule(() -> {
            confirmed.forEach(w -> w.confirmed.complete(null));
            dropped.forEach(w -> w.confirmed.completeExceptionally(error));
        }, Instant.now());
    }

    private static boolean inProcess(Throwable failure) {
        return PublishException.find(failure).map(p -> p.apiErrorCode() == IN_PROCESS).orElse(false);
    }

    private static boolean refusedForItself(Throwable failure) {
        Optional<PublishException> publish = PublishException.find(failure);
        return publish.isPresent() && !publish.get().isUnavailable()
                && publish.get().apiErrorCode() != WRONG_LAST_MESSAGE_ID
                && publish.get().apiErrorCode() != WRONG_LAST_SEQUENCE;
    }

    private void fence(String reason, Throwable cause) {
        List<Write> dropped;
        StateFencedException error;
        synchronized (this) {
            if (fenced != null || closed) {
                return;
            }
            fenced = new StateFencedException("state bucket " + bucket + ": " + reason + "; this writer (" + writer
                    + ", placement epoch " + epoch + ") no longer owns it and stops", cause);
            error = fenced;
            dropped = new ArrayList<>(unconfirmed);
            unconfirmed.clear();
            cache.clear();
        }
        dropped.forEach(w -> w.confirmed.completeExceptionally(error));
    }

    /**
     * Never evicts a key with an unconfirmed write: its cached value is the only copy of
     * the writer's view.
     */
    private void evict() {
        Iterator<Cached> eldest = cache.values().iterator();
        while (cache.size() > settings.maxCachedKeys() && eldest.hasNext()) {
            if (eldest.next().pending == 0) {
                eldest.remove();
                complete = false;
            }
        }
    }

    private void usable() {
        if (fenced != null) {
            throw fenced;
        }
        if (closed) {
            throw new StateException("state bucket " + bucket + " was closed (pipeline undeployed)", null);
        }
    }

    private void createIfAbsent() throws IOException, JetStreamApiException {
        KeyValueBuckets.createIfAbsent(connection.keyValueManagement(),
                KeyValueConfiguration.builder()
                    .name(bucket)
                    .maxHistoryPerKey(1)
                    .ttl(settings.ttl())
                    .storageType(StorageType.File)
                    .replicas(settings.replicas())
                    .description("Varpulis pipeline state")
                    .build());
    }

    /**
     * Writes the fence expecting the bucket's last sequence, so that it lands only on the
     * state this open read; every earlier writer's next write is then refused.
     */
    private void takeOver() throws IOException, JetStreamApiException {
        long deadline = System.nanoTime() + settings.timeout().multipliedBy(6).toNanos();
        BackOffExecution waits = Backoffs.start(Duration.ofMillis(FIRST_RETRY_MILLIS),
                Duration.ofMillis(MAX_RETRY_MILLIS));
        // The last sequence a 10071 refusal named: the fence is written again expecting
        // it at once. A stream info read
        // after a refusal can keep answering an older sequence while the leader still
        // applies writes it has accepted
        // (a slow disk behind it: issue 30, 44 fences refused for 105 s with nothing else
        // writing).
        Long reported = null;
        for (int attempt = 1;; attempt++) {
            String failure;
            try {
                StreamState before = jsm.getStreamInfo(stream).getStreamState();
                Optional<MessageInfo> current = leaderRead(MessageGetRequest.lastForSubject(subject(FENCE_KEY)),
                        "read the fence");
                long heldBy = current.map(StateReads::epochOf).orElse(-1L);
                if (heldBy > epoch) {
                    throw new StateFencedException("state bucket " + bucket + " is held by placement epoch " + heldBy
                            + " (" + current.map(m -> new String(m.getData(), StandardCharsets.UTF_8)).orElse("")
                            + "); this placement has epoch " + epoch + " and must not write it", null);
                }
                long expected = reported != null ? reported : before.getLastSequence();
                PublishReceipt receipt = transport
                    .publish(new OutboundMessage(subject(FENCE_KEY), fenceValue(), writer + ":0", DELETE_MARKER,
                            expected, null))
                    .get(settings.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
                long keys = before.getMsgCount() - (current.isPresent() ? 1 : 0);
                synchronized (this) {
                    confirmedSequence = receipt.sequence();
                    confirmedMessageId = writer + ":0";
                    sentMessageId = confirmedMessageId;
                    // Known empty only when the count read is the count the fence landed
                    // on.
                    complete = keys == 0 && expected == before.getLastSequence();
                }
                log.info("opened state bucket {} as writer {} (placement epoch {}, {} key(s), fence at sequence {})",
                        bucket, writer, epoch, keys, receipt.sequence());
                return;
            }
            catch (ExecutionException e) {
                PublishException refused = PublishException.find(e).orElse(null);
                if (refused != null && refused.apiErrorCode() == WRONG_LAST_SEQUENCE) {
                    if (attempt >= OPEN_ATTEMPTS) {
                        throw new StateFencedException("state bucket " + bucket + " kept being written by another "
                                + "writer while placement epoch " + epoch + " opened it (" + attempt + " tries)", e);
                    }
                    Long named = reportedLastSequence(e);
                    failure = "written meanwhile";
                    if (named != null && !named.equals(reported)) {
                        // Another writer's message landed, or the read was behind: expect
                        // what the leader has now.
                        reported = named;
                        continue;
                    }
                    reported = null;
                }
                else if (refused != null && !refused.isUnavailable()) {
                    throw new StateException("cannot write the fence of bucket " + bucket + ": " + refused.getMessage(),
                            e);
                }
                else {
                    failure = String.valueOf(e.getCause());
                }
            }
            catch (TimeoutException | StateUnavailableException e) {
                failure = e.toString();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StateUnavailableException("interrupted while opening bucket " + bucket, e);
            }
            long wait = waits.nextBackOff();
            if (System.nanoTime() + wait * 1_000_000 > deadline) {
                throw new StateUnavailableException("cannot open state bucket " + bucket + ": " + failure, null);
            }
            sleep(wait);
        }
    }

    /**
     * The last sequence a 10071 refusal names ({@code wrong last sequence: N}), or
     * {@code null}.
     */
    private static Long reportedLastSequence(Throwable refusal) {
        for (Throwable t = refusal; t != null; t = t.getCause()) {
            if (t instanceof JetStreamApiException api && api.getErrorDescription() != null) {
                Matcher matcher = LAST_SEQUENCE.matcher(api.getErrorDescription());
                if (matcher.find()) {
                    return Long.parseLong(matcher.group(1));
                }
            }
        }
        return null;
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
     * @throws StateFencedException when the bucket is gone
     */
    public static Optional<byte[]> readFromLeader(Connection connection, String bucket, String key, Duration timeout) {
        return StateReads
            .leaderRead(connection, "KV_" + bucket, bucket, timeout,
                    MessageGetRequest.lastForSubject("$KV." + bucket + "." + key), "read " + key)
            .filter(StateReads::isValue)
            .map(message -> message.getData() == null ? new byte[0] : message.getData());
    }

    /**
     * Reads from the stream leader ({@code STREAM.MSG.GET}), never from a replica.
     * @return the message, or empty when there is none
     * @throws StateUnavailableException when the leader did not answer
     * @throws StateFencedException when the bucket is gone
     */
    private Optional<MessageInfo> leaderRead(MessageGetRequest request, String what) {
        return StateReads.leaderRead(connection, stream, bucket, settings.timeout(), request, what);
    }

    private byte[] fenceValue() {
        return StateReads.fenceValue(epoch, writer, Instant.now(clock));
    }

    private String subject(String key) {
        return "$KV." + bucket + "." + key;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StateUnavailableException("interrupted while opening a state bucket", e);
        }
    }

    private enum Status {

        QUEUED, SENT, STORED, FAILED

    }

    /** One write of the chain. */
    private static final class Write {

        private final String key;

        private final byte[] value;

        private final String messageId;

        private final CompletableFuture<Void> confirmed = new CompletableFuture<>();

        private Status status = Status.QUEUED;

        private long sequence;

        private int refusals;

        private int inProcessChecks;

        private Throwable failure;

        /**
         * Set once its late PubAck is awaited (read and written on the settling path
         * only).
         */
        private volatile boolean awaitedLate;

        private Write(String key, byte[] value, String messageId) {
            this.key = key;
            this.value = value;
            this.messageId = messageId;
        }

    }

    /**
     * A cached key: its value ({@code null} when absent) and when the bucket's TTL
     * removes it.
     */
    private static final class Cached {

        private final byte[] value;

        private final Instant expiresAt;

        private int pending;

        private Cached(byte[] value, Instant expiresAt) {
            this.value = value;
            this.expiresAt = expiresAt;
        }

        private boolean expired(Instant now) {
            return expiresAt != null && now.isAfter(expiresAt);
        }

        private Optional<byte[]> value() {
            return value == null ? Optional.empty() : Optional.of(value.clone());
        }

    }

}
