package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import io.varpulis.cluster.node.KeyValueLease;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.StateReads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The JetStream store: {@code create} at revision 0, so that of two coordinators
 * declaring a name, one wins.
 * <p>
 * The watch is jnats' ordered consumer, which re-creates itself after missed idle
 * heartbeats. That re-creation can keep failing for minutes after a server of a cluster
 * is killed (seen on nats-server 2.9: every consumer create from one connection
 * unanswered, while reads were answered), and a coordinator that is not leading would
 * then never learn of a group declared on the other. So the store is also re-read every
 * {@link #RESYNC_INTERVAL} from the bucket stream's subjects (stream info, no consumer)
 * and each key's last message, read from the stream leader, when the stream holds a
 * message past the last one the watch delivered: what the watch missed is told to the
 * listener then, never a revision it delivered (revisions compared under one lock). The
 * re-reads run on the {@code varpulisGroupResyncScheduler}, a thread of their own (a slow
 * stream leader never delays a tick).
 */
final class JetStreamGroupStore implements GroupStore {

    private static final Logger log = LoggerFactory.getLogger(JetStreamGroupStore.class);

    private static final Duration INITIAL_LOAD = Duration.ofSeconds(30);

    /** How often the store is re-read beside the watch. */
    static final Duration RESYNC_INTERVAL = Duration.ofSeconds(5);

    private static final String BUCKET = ControlPlaneBuckets.GROUPS;

    private static final String STREAM = "KV_" + BUCKET;

    /** How long the stream leader may take to answer one read of the re-read. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

    private final KeyValue kv;

    private final Connection connection;

    private final JetStreamManagement jsm;

    private final ObjectMapper mapper;

    private final String cluster;

    private final String prefix;

    private final TaskScheduler scheduler;

    private final Map<String, Set<String>> others = new ConcurrentHashMap<>();

    /**
     * This cluster's groups the listener was told of, by name: the revision of the entry
     * it was told.
     */
    private final Map<String, Long> told = new HashMap<>();

    /**
     * The highest revision (stream sequence, any key) the watch delivered; guarded by
     * {@link #told}.
     */
    private long watermark;

    JetStreamGroupStore(KeyValue kv, Connection connection, ObjectMapper mapper, String cluster,
            TaskScheduler scheduler) throws IOException {
        this.kv = kv;
        this.scheduler = scheduler;
        this.connection = connection;
        this.jsm = connection.jetStreamManagement();
        this.mapper = mapper;
        this.cluster = cluster;
        this.prefix = GroupStore.key(cluster, "");
    }

    @Override
    public AutoCloseable watch(Listener listener) {
        CountDownLatch loaded = new CountDownLatch(1);
        try {
            AutoCloseable watch = kv.watchAll(new KeyValueWatcher() {
                @Override
                public void watch(KeyValueEntry entry) {
                    onEntry(entry, listener);
                }

                @Override
                public void endOfData() {
                    loaded.countDown();
                }
            });
            if (!loaded.await(INITIAL_LOAD.toMillis(), TimeUnit.MILLISECONDS)) {
                watch.close();
                throw new IllegalStateException("the pipeline groups in " + BUCKET + " did not arrive within "
                        + INITIAL_LOAD.toSeconds() + " s");
            }
            AtomicBoolean stopped = new AtomicBoolean();
            ScheduledFuture<?> resyncs = scheduler.scheduleWithFixedDelay(() -> resync(listener, stopped),
                    Instant.now().plus(RESYNC_INTERVAL), RESYNC_INTERVAL);
            return () -> {
                resyncs.cancel(false);
                synchronized (told) {
                    // A re-read under way tells nothing after the watch was stopped.
                    stopped.set(true);
                }
                watch.close();
            };
        }
        catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot watch the pipeline groups in " + BUCKET + ": " + e.getMessage(), e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the pipeline groups", e);
        }
        catch (IllegalStateException e) {
            throw e;
        }
        catch (Exception e) {
            throw new IllegalStateException("cannot watch the pipeline groups: " + e.getMessage(), e);
        }
    }

    /**
     * Re-reads this cluster's groups from the store and tells the listener what the watch
     * did not, when the watch is behind: only when the bucket's stream holds a message
     * past the last one the watch delivered, and only what is past it (a revision the
     * watch delivered, or one it will deliver after a later one, is never told again, so
     * a group deleted meanwhile is never brought back). Each key's last message is read
     * from the stream leader ({@link StateReads#leaderRead}), never a replica that may
     * answer from behind. A store that does not answer is asked again at the next
     * interval (said at DEBUG: the watch and the API say more).
     */
    void resync(Listener listener) {
        resync(listener, new AtomicBoolean());
    }

    private void resync(Listener listener, AtomicBoolean stopped) {
        Map<String, Long> before;
        long watched;
        synchronized (told) {
            before = new HashMap<>(told);
            watched = watermark;
        }
        String subjects = "$KV." + BUCKET + ".";
        Map<String, MessageInfo> last = new HashMap<>();
        try {
            StreamInfo info = jsm.getStreamInfo(STREAM, StreamInfoOptions.filterSubjects(subjects + prefix + ">"));
            if (info.getStreamState().getLastSequence() <= watched) {
                return;
            }
            List<Subject> listed = info.getStreamState().getSubjects();
            for (Subject subject : listed == null ? List.<Subject>of() : listed) {
                String key = subject.getName().substring(subjects.length());
                StateReads
                    .leaderRead(connection, STREAM, BUCKET, READ_TIMEOUT,
                            MessageGetRequest.lastForSubject(subject.getName()), "read group " + key)
                    .ifPresent(message -> last.put(key.substring(prefix.length()), message));
            }
        }
        catch (IOException | JetStreamApiException | RuntimeException e) {
            log.debug("could not re-read the pipeline groups in {} ({}); trying again in {} s", BUCKET, e.toString(),
                    RESYNC_INTERVAL.toSeconds());
            return;
        }
        synchronized (told) {
            if (stopped.get()) {
                return;
            }
            last.forEach((name, message) -> {
                Long known = told.get(name);
                if (message.getSeq() <= watermark || (known != null && known >= message.getSeq())) {
                    return;
                }
                if (StateReads.isValue(message)) {
                    log.info("pipeline group {} (revision {}) found by re-reading {}: its watch had not delivered "
                            + "it", name, message.getSeq(), BUCKET);
                    told.put(name, message.getSeq());
                    tellStored(name, message.getData(), listener);
                }
                else if (known != null) {
                    log.info("pipeline group {} was deleted (revision {}), found by re-reading {}: its watch had not "
                            + "delivered it", name, message.getSeq(), BUCKET);
                    told.remove(name);
                    listener.removed(name);
                }
            });
            before.forEach((name, revision) -> {
                // Gone without a trace (purged), and unchanged since the re-read began.
                if (!last.containsKey(name) && revision.equals(told.get(name)) && watermark == watched) {
                    log.info("pipeline group {} is gone from {} on re-reading it: its watch had not delivered the "
                            + "delete", name, BUCKET);
                    told.remove(name);
                    listener.removed(name);
                }
            });
        }
    }

    private void onEntry(KeyValueEntry entry, Listener listener) {
        synchronized (told) {
            onEntryTold(entry, listener);
        }
    }

    private void onEntryTold(KeyValueEntry entry, Listener listener) {
        watermark = Math.max(watermark, entry.getRevision());
        String key = entry.getKey();
        boolean put = entry.getOperation() == KeyValueOperation.PUT;
        if (!key.startsWith(prefix)) {
            int dot = key.indexOf('.');
            String cluster = dot < 0 ? "" : key.substring(0, dot);
            String name = key.substring(dot + 1);
            if (put) {
                others.computeIfAbsent(cluster, c -> ConcurrentHashMap.newKeySet()).add(name);
            }
            else {
                others.computeIfPresent(cluster, (c, names) -> {
                    names.remove(name);
                    return names.isEmpty() ? null : names;
                });
            }
            return;
        }
        String name = key.substring(prefix.length());
        Long known = told.get(name);
        if (known != null && known >= entry.getRevision()) {
            return;
        }
        if (!put) {
            told.remove(name);
            listener.removed(name);
            return;
        }
        told.put(name, entry.getRevision());
        tellStored(name, entry.getValue(), listener);
    }

    private void tellStored(String name, byte[] value, Listener listener) {
        try {
            listener.stored(mapper.readValue(value, PipelineGroupSpec.class));
        }
        catch (IOException | RuntimeException e) {
            log.warn("pipeline group {} in {} is not readable and is ignored: {}", name, BUCKET, e.toString());
        }
    }

    @Override
    public void create(PipelineGroupSpec group) {
        try {
            kv.create(GroupStore.key(cluster, group.name()), mapper.writeValueAsBytes(group));
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == KeyValueLease.WRONG_LAST_SEQUENCE) {
                throw GroupStore.exists(group.name());
            }
            throw new IllegalStateException("cannot store pipeline group " + group.name() + ": " + e.getMessage(), e);
        }
        catch (IOException e) {
            // No answer or no responders: the bucket's stream electing a leader (a server
            // killed). Not stored; the
            // API answers 503 and the caller tries again, as for a timeout.
            throw new GroupStoreUnavailableException("store pipeline group " + group.name(), e);
        }
    }

    @Override
    public void delete(String name) {
        try {
            kv.delete(GroupStore.key(cluster, name));
        }
        catch (IOException | JetStreamApiException e) {
            throw new GroupStoreUnavailableException("delete pipeline group " + name, e);
        }
    }

    @Override
    public boolean holds(String name) {
        try {
            return kv.get(GroupStore.key(cluster, name)) != null;
        }
        catch (IOException | JetStreamApiException e) {
            throw new GroupStoreUnavailableException("read pipeline group " + name, e);
        }
    }

    @Override
    public Map<String, Set<String>> otherClusters() {
        Map<String, Set<String>> copy = new TreeMap<>();
        others.forEach((cluster, names) -> copy.put(cluster, new TreeSet<>(names)));
        return copy;
    }

}
