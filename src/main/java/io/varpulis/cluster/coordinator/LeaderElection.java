package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatcher;
import io.varpulis.cluster.node.KeyValueLease;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which coordinator of a cluster leads (SPEC section 9): the one holding the lease on key
 * {@code {cluster name}} of the JetStream key-value bucket
 * {@value ControlPlaneBuckets#LEADER}, as Stellar Control keeps its leaders in
 * {@code stellar_leader} ({@link KeyValueLease}: taken with create, renewed with update
 * at the expected revision, expired by the bucket's max_age). The lease's value is
 * {@code {"leader": "<coordinator id>", "epoch": N, "cluster": "...", "renewed_at": "<RFC
 * 3339>", "expires_at": "<RFC 3339>"}}.
 * <p>
 * The epoch is the revision at which the lease was taken. Revisions are the bucket
 * stream's sequence numbers, which only grow (even when every entry has expired), so each
 * new leader's epoch is larger than every earlier one without any other bookkeeping.
 * Renewals carry it in the value; the very first version of a lease does not yet, and
 * readers take its revision. Never delete the bucket: that starts the sequence again,
 * workers refuse the new leader's (smaller) epochs until they restart, and every
 * pipeline's state stays fenced by the older placement epochs until its bucket expires
 * (docs/OPERATING.md says how to recover).
 * <p>
 * Every coordinator contends: the holder renews every third of the TTL on its own thread
 * (the {@code varpulisElectionScheduler}, which nothing else uses: a slow tick never
 * delays a renewal); the others try to take the key at the same pace, and at once when
 * the bucket announces an expiry (nats-server 2.11+). A leader that cannot renew stops
 * leading at its deadline ({@link #isLeader()}), before the server lets anyone else take
 * the key. On the core substrate (no key-value store) the coordinator is the leader
 * alone, at epoch 1: run one.
 * <p>
 * One class, longer than most: taking, renewing, reclaiming and releasing the lease and
 * watching its bucket all read and write one state (revision, epoch, deadline, the leader
 * seen) on the election's thread; split, a renewal and a watch event could disagree about
 * who leads.
 */
public class LeaderElection implements AutoCloseable {

    /** The epoch of a coordinator that leads alone (core substrate). */
    public static final long SOLO_EPOCH = 1;

    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

    private final String coordinatorId;

    private final String cluster;

    private final KeyValueLease lease;

    private final ObjectMapper mapper;

    private final Clock clock;

    private final Map<String, Leader> otherClusters = new ConcurrentHashMap<>();

    private volatile Leader current;

    private volatile long epoch;

    private volatile boolean leading;

    private final TaskScheduler scheduler;

    /** Held by a contention round; {@link #close()} waits for the one under way. */
    private final ReentrantLock round = new ReentrantLock();

    private volatile Listener listener = leads -> {
    };

    private volatile boolean contending;

    private ScheduledFuture<?> rounds;

    private AutoCloseable watch;

    private LeaderElection(String coordinatorId, String cluster, KeyValueLease lease, ObjectMapper mapper,
            TaskScheduler scheduler) {
        this.coordinatorId = coordinatorId;
        this.cluster = cluster;
        this.lease = lease;
        this.mapper = mapper;
        this.scheduler = scheduler;
        this.clock = Clock.systemUTC();
    }

    /**
     * An election over the {@value ControlPlaneBuckets#LEADER} bucket (created when
     * absent).
     * @param connection the connection
     * @param coordinatorId this coordinator
     * @param cluster the cluster name, the lease's key
     * @param settings the lease TTL of a new bucket (leader-lease-ttl), its replicas, the
     * requests' timeout
     * @param mapper writes and reads the lease value
     * @param scheduler runs the contention rounds (one thread of their own)
     * @return the election, not started
     * @throws IllegalStateException when the bucket cannot be created or opened
     */
    public static LeaderElection lease(Connection connection, String coordinatorId, String cluster,
            KeyValueLease.Settings settings, ObjectMapper mapper, TaskScheduler scheduler) {
        KeyValueLease lease = KeyValueLease.open(connection, ControlPlaneBuckets.LEADER, cluster, settings,
                "Varpulis coordinator leader leases, one key per cluster");
        return new LeaderElection(coordinatorId, cluster, lease, mapper, scheduler);
    }

    /**
     * @param coordinatorId this coordinator
     * @param cluster the cluster name
     * @return an election that this coordinator always wins, at {@link #SOLO_EPOCH}: the
     * core substrate
     */
    public static LeaderElection solo(String coordinatorId, String cluster) {
        return new LeaderElection(coordinatorId, cluster, null, null, null);
    }

    /**
     * Told when this coordinator starts or stops leading.
     */
    @FunctionalInterface
    public interface Listener {

        /**
         * @param leads {@code true} when this coordinator starts leading, {@code false}
         * when it stops; on the election's thread
         */
        void leadershipChanged(boolean leads);

    }

    /**
     * Starts contending (at once, then every third of the TTL) and watching the bucket.
     * @param listener told when this coordinator starts or stops leading
     */
    public synchronized void start(Listener listener) {
        this.listener = listener;
        if (lease == null) {
            epoch = SOLO_EPOCH;
            current = new Leader(coordinatorId, SOLO_EPOCH, cluster, clock.instant(), null);
            leading = true;
            listener.leadershipChanged(true);
            return;
        }
        contending = true;
        try {
            watch = lease.bucket().watchAll(new KeyValueWatcher() {
                @Override
                public void watch(KeyValueEntry entry) {
                    onEntry(entry);
                }

                @Override
                public void endOfData() {
                    // The current entries are in; later ones follow as they are written.
                }
            });
        }
        catch (IOException | io.nats.client.JetStreamApiException e) {
            log.warn("cannot watch {}: {}; the leader is still known from each contention round",
                    ControlPlaneBuckets.LEADER, e.toString());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        rounds = scheduler.scheduleWithFixedDelay(this::contend, Instant.now(), renewInterval());
    }

    /**
     * @return how often the holder renews and the others contend: a third of the TTL
     */
    public Duration renewInterval() {
        return lease == null ? Duration.ZERO : lease.ttl().dividedBy(3);
    }

    /**
     * @return the lease TTL (the bucket's max_age), zero when leading alone
     */
    public Duration ttl() {
        return lease == null ? Duration.ZERO : lease.ttl();
    }

    /**
     * @return whether the bucket announces an expiry to watchers (nats-server 2.11+), so
     * that another coordinator takes over at once instead of at its next contention round
     */
    public boolean announcesExpiry() {
        return lease != null && lease.announcesExpiry();
    }

    /**
     * @return whether this coordinator leads now: it holds the lease and its deadline has
     * not passed
     */
    public boolean isLeader() {
        return leading && (lease == null || lease.isHeld());
    }

    /**
     * @return this coordinator's epoch while it leads (the last one it led with
     * afterwards), 0 before it ever led
     */
    public long epoch() {
        return epoch;
    }

    /**
     * @return the cluster's leader as last seen (this coordinator's own lease while it
     * leads), empty when none is known
     */
    public Optional<Leader> current() {
        Leader known = current;
        if (known != null && known.expiresAt() != null && known.expiresAt().isBefore(clock.instant()) && !isLeader()) {
            return Optional.empty();
        }
        return Optional.ofNullable(known);
    }

    /**
     * @return the leaders of other clusters found in the bucket, by cluster name (the
     * account holds more than one cluster)
     */
    public Map<String, Leader> otherClusters() {
        return new TreeMap<>(otherClusters);
    }

    /**
     * @return this coordinator's id
     */
    public String coordinatorId() {
        return coordinatorId;
    }

    /**
     * @return the cluster name
     */
    public String cluster() {
        return cluster;
    }

    /** Runs a contention round now (a marker said the lease expired). */
    private void contendSoon() {
        if (contending) {
            scheduler.schedule(this::contend, Instant.now());
        }
    }

    private void contend() {
        round.lock();
        try {
            if (contending) {
                contendOnce();
            }
        }
        finally {
            round.unlock();
        }
    }

    private void contendOnce() {
        try {
            if (lease.revision() != 0) {
                renew();
            }
            else if (lease.tryAcquire(value(0))) {
                epoch = lease.revision();
                // The first version cannot know its own revision: the renewal writes the
                // epoch into the value.
                lease.renew(value(epoch));
                current = leaderOf(epoch);
                log.info("coordinator {} leads cluster {} (epoch {}, lease {} ms)", coordinatorId, cluster, epoch,
                        lease.ttl().toMillis());
                changed(true);
            }
            else {
                lease.read().map(this::parse).ifPresent(known -> current = known);
            }
        }
        catch (IOException | io.nats.client.JetStreamApiException | RuntimeException e) {
            log.debug("leader lease round failed: {}", e.toString());
        }
        if (leading && !lease.isHeld()) {
            log.warn(
                    "coordinator {} could not renew its leader lease within {} ms (NATS unreachable?); it stops "
                            + "leading cluster {} until it holds the lease again",
                    coordinatorId, lease.ttl().toMillis(), cluster);
            changed(false);
        }
    }

    private void renew() {
        switch (lease.renew(value(epoch))) {
            case HELD -> {
                current = leaderOf(epoch);
                if (!leading) {
                    log.info("coordinator {} renewed its leader lease again and leads cluster {} (epoch {})",
                            coordinatorId, cluster, epoch);
                    changed(true);
                }
            }
            case LOST -> {
                if (reclaimOwnWrite()) {
                    return;
                }
                log.warn("coordinator {} lost the leader lease of cluster {} (epoch {}): another coordinator took it "
                        + "after it lapsed; it stops leading", coordinatorId, cluster, epoch);
                lease.forget();
                if (leading) {
                    changed(false);
                }
            }
            case UNREACHABLE -> {
                // Retried next round; isLeader() turns false by itself at the deadline.
            }
        }
    }

    /**
     * A renewal whose reply was lost was still stored: the next one then finds its own
     * value at a newer revision. That is this coordinator's lease still, at the same
     * epoch.
     */
    private boolean reclaimOwnWrite() {
        try {
            Optional<KeyValueEntry> entry = lease.read();
            if (entry.isPresent()) {
                Leader seen = parse(entry.get());
                if (seen != null && coordinatorId.equals(seen.leader()) && seen.epoch() == epoch
                        && lease.takeOver(value(epoch), entry.get().getRevision())) {
                    current = leaderOf(epoch);
                    return true;
                }
            }
        }
        catch (IOException | io.nats.client.JetStreamApiException e) {
            log.debug("reading the leader lease back failed: {}", e.toString());
        }
        return false;
    }

    private void changed(boolean leads) {
        leading = leads;
        try {
            listener.leadershipChanged(leads);
        }
        catch (RuntimeException e) {
            log.warn("leadership change handler failed: {}", e.toString());
        }
    }

    private void onEntry(KeyValueEntry entry) {
        if (entry.getKey().equals(cluster)) {
            if (entry.getOperation() == KeyValueOperation.PUT) {
                Leader seen = parse(entry);
                if (seen != null && !coordinatorId.equals(seen.leader())) {
                    current = seen;
                }
            }
            else if (!isLeader()) {
                contendSoon();
            }
            return;
        }
        if (entry.getOperation() == KeyValueOperation.PUT) {
            Leader other = parse(entry);
            if (other != null && otherClusters.put(entry.getKey(), other) == null) {
                log.warn(
                        "NATS account holds another Varpulis cluster, {} (leader {}); this coordinator serves {} "
                                + "and leaves its groups and workers alone (give each cluster its own NATS account)",
                        entry.getKey(), other.leader(), cluster);
            }
        }
        else {
            otherClusters.remove(entry.getKey());
        }
    }

    private Leader leaderOf(long leaderEpoch) {
        Instant now = clock.instant();
        return new Leader(coordinatorId, leaderEpoch, cluster, now, now.plus(lease.ttl()));
    }

    private byte[] value(long leaderEpoch) {
        try {
            return mapper.writeValueAsBytes(leaderOf(leaderEpoch));
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot write the leader lease value", e);
        }
    }

    private Leader parse(KeyValueEntry entry) {
        try {
            Leader read = mapper.readValue(entry.getValue(), Leader.class);
            long leaderEpoch = read.epoch() > 0 ? read.epoch() : entry.getRevision();
            Instant renewed = entry.getCreated() == null ? read.renewedAt() : entry.getCreated().toInstant();
            return new Leader(read.leader(), leaderEpoch, read.cluster(), renewed,
                    renewed == null ? null : renewed.plus(lease.ttl()));
        }
        catch (IOException | RuntimeException e) {
            log.debug("unreadable leader lease {}: {}", entry.getKey(), e.toString());
            return null;
        }
    }

    /**
     * Stops contending; a leader gives its lease up so that another coordinator leads at
     * once.
     */
    @Override
    public synchronized void close() {
        contending = false;
        if (rounds != null) {
            rounds.cancel(false);
            rounds = null;
            try {
                // The round under way ends before the lease is given up, or this waits no
                // longer than it did.
                if (round.tryLock(5, TimeUnit.SECONDS)) {
                    round.unlock();
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (watch != null) {
            try {
                watch.close();
            }
            catch (Exception e) {
                log.debug("closing the leader watch: {}", e.toString());
            }
            watch = null;
        }
        if (lease != null && lease.revision() != 0) {
            lease.release();
            log.info("coordinator {} gave up the leader lease of cluster {}", coordinatorId, cluster);
        }
        leading = false;
    }

    /**
     * A cluster's leader, as the lease value and as {@code GET /api/v1/cluster/leader}
     * show it.
     *
     * @param leader the leading coordinator's id
     * @param epoch its epoch
     * @param cluster the cluster name
     * @param renewedAt when the lease was last written (the server's time, when read
     * back)
     * @param expiresAt when it lapses without another renewal
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Leader(@JsonProperty("leader") String leader, @JsonProperty("epoch") long epoch,
            @JsonProperty("cluster") String cluster, @JsonProperty("renewed_at") Instant renewedAt,
            @JsonProperty("expires_at") Instant expiresAt) {
    }

}
