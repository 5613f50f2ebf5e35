package io.varpulis.cluster.coordinator;

import io.nats.client.api.StreamInfo;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The NATS server's clock as this coordinator knows it, so that the age of a heartbeat is
 * measured on one clock only (SPEC section 9: liveness never depends on two hosts' clocks
 * agreeing). A heartbeat's stream timestamp is set by the server's clock; comparing it
 * with this host's wall clock would make every heartbeat stale on a coordinator whose
 * clock runs ahead (issue 25, item 4).
 * <p>
 * It keeps an estimate of the server's "now": the latest server time seen plus the time
 * elapsed since it was seen, measured on this host's monotonic clock
 * ({@link System#nanoTime()}), which no wall-clock step or skew moves. On nats-server
 * 2.10 and later the server time is the {@code ts} of a stream info, set by the stream's
 * leader when it answers; stored timestamps are then not used, because a message stored
 * by an earlier leader whose clock ran ahead would pin the estimate ahead of the current
 * leader for good (every heartbeat it stores would look stale). The estimate only moves
 * forward while the same server leads; when the leader changes (the stream info's cluster
 * leader; {@code null} on a single server) it is set to the new leader's {@code ts}, also
 * backwards. So only the leader's own clock is ever compared with the leader's own
 * timestamps, up to a leader change; the servers of one cluster are assumed roughly in
 * sync only for the heartbeats stored by one leader and measured against the next, until
 * the next stream info read (once a second).
 * <p>
 * nats-server 2.9 reports no current time ({@code ts}): there the estimate is a lower
 * bound raised by stored timestamps (a delivered heartbeat's, the stream's last message
 * time), and this host's wall clock also counts as a server time, so with every worker
 * gone a replayed heartbeat is still measured against something current, at the price of
 * the clock requirement of earlier versions (hosts' clocks in sync, documented in
 * RELIABILITY.md). Thread-safe.
 */
public final class ServerClock {

    private final LongSupplier nanoTime;

    private final Clock wallClock;

    // Guarded by this: the latest server time seen and the monotonic reading when it was
    // seen.
    private Instant seen;

    private long seenAtNanos;

    private boolean reportsTime;

    // Guarded by this: the server that led the stream at the last stream info with a ts
    // (null on a single server).
    private String leader;

    /**
     * A server clock measured with {@link System#nanoTime()}.
     * @param wallClock this host's wall clock, used only until the server reports its
     * time (nats-server 2.9)
     */
    public ServerClock(Clock wallClock) {
        this(System::nanoTime, wallClock);
    }

    /**
     * @param nanoTime this host's monotonic clock, in nanoseconds (tests pass their own)
     * @param wallClock this host's wall clock, used only until the server reports its
     * time (nats-server 2.9)
     */
    public ServerClock(LongSupplier nanoTime, Clock wallClock) {
        this.nanoTime = nanoTime;
        this.wallClock = wallClock;
    }

    /**
     * Records a stored time read from the server (a delivered message's stream
     * timestamp), when it is later than what is known already; ignored once the server
     * reported its time (nats-server 2.10 and later), where a time stored by an earlier
     * leader could be ahead of the current leader's clock.
     * @param serverTime a time set by the server's clock that has passed; {@code null} is
     * ignored
     */
    public synchronized void observe(Instant serverTime) {
        if (serverTime != null && !reportsTime) {
            raise(serverTime);
        }
    }

    /**
     * Records the server time a stream info carries: its {@code ts} (the answering
     * leader's time, nats-server 2.10 and later), which moves the estimate back too when
     * the stream's leader changed; on 2.9, which has no {@code ts}, the time of the
     * stream's last message as a lower bound.
     * @param info a stream info just received
     */
    public synchronized void observe(StreamInfo info) {
        if (info.getTimestamp() != null) {
            Instant ts = info.getTimestamp().toInstant();
            String answering = info.getClusterInfo() == null ? null : info.getClusterInfo().getLeader();
            if (!reportsTime || !Objects.equals(answering, leader)) {
                reportsTime = true;
                leader = answering;
                seen = ts;
                seenAtNanos = nanoTime.getAsLong();
            }
            else {
                raise(ts);
            }
        }
        else if (info.getStreamState() != null && info.getStreamState().getLastTime() != null) {
            observe(info.getStreamState().getLastTime().toInstant());
        }
    }

    /**
     * @return whether the server reported its current time (nats-server 2.10 and later):
     * from then on this host's wall clock is never read
     */
    public synchronized boolean serverReportsTime() {
        return reportsTime;
    }

    /**
     * @return the latest server time this coordinator can vouch for (a lower bound of the
     * server's now), empty before any was seen; this host's wall clock counts too until
     * the server reported its time
     */
    public synchronized Optional<Instant> now() {
        return nowAt(nanoTime.getAsLong());
    }

    /**
     * Records the stored time (as {@link #observe(Instant)} does), then measures how long
     * ago the server stored it.
     * @param storedAt a message's stream timestamp
     * @return its age on the server's clock, never negative
     */
    public synchronized Duration ageOf(Instant storedAt) {
        observe(storedAt);
        Duration age = Duration.between(storedAt, now().orElse(storedAt));
        return age.isNegative() ? Duration.ZERO : age;
    }

    private void raise(Instant serverTime) {
        long nowNanos = nanoTime.getAsLong();
        Optional<Instant> known = nowAt(nowNanos);
        if (known.isEmpty() || serverTime.isAfter(known.get())) {
            seen = serverTime;
            seenAtNanos = nowNanos;
        }
    }

    private Optional<Instant> nowAt(long nowNanos) {
        Optional<Instant> server = seen == null ? Optional.empty()
                : Optional.of(seen.plusNanos(nowNanos - seenAtNanos));
        if (reportsTime) {
            return server;
        }
        Instant wall = wallClock.instant();
        return Optional.of(server.filter(t -> t.isAfter(wall)).orElse(wall));
    }

}
