package io.varpulis.cluster;

import io.nats.client.api.StreamInfo;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The NATS server's clock as this coordinator knows it, so that the age of a heartbeat is measured on one clock only
 * (SPEC section 9: liveness never depends on two hosts' clocks agreeing). A heartbeat's stream timestamp is set by
 * the server's clock; comparing it with this host's wall clock would make every heartbeat stale on a coordinator
 * whose clock runs ahead (issue 25, item 4).
 * <p>It keeps a lower bound of the server's "now": the latest server time seen (a stream timestamp of a delivered
 * heartbeat, the {@code ts} of a stream info on nats-server 2.10 and later, the stream's last message time) plus the
 * time elapsed since it was seen, measured on this host's monotonic clock ({@link System#nanoTime()}), which no
 * wall-clock step or skew moves. A lower bound errs on the safe side: a heartbeat's age is never overstated, so a
 * fresh heartbeat is never discarded; a replayed one is found stale as soon as any newer server time was seen.
 * <p>nats-server 2.9 reports no current time ({@code ts}), so until a server has reported one this host's wall clock
 * also counts as a server time: there, with every worker gone, a replayed heartbeat is still measured against
 * something current, at the price of the clock requirement of earlier versions (hosts' clocks in sync, documented in
 * RELIABILITY.md). Thread-safe.
 */
public final class ServerClock {

    private final LongSupplier nanoTime;
    private final Clock wallClock;
    // Guarded by this: the latest server time seen and the monotonic reading when it was seen.
    private Instant seen;
    private long seenAtNanos;
    private boolean reportsTime;

    /**
     * A server clock measured with {@link System#nanoTime()}.
     *
     * @param wallClock this host's wall clock, used only until the server reports its time (nats-server 2.9)
     */
    public ServerClock(Clock wallClock) {
        this(System::nanoTime, wallClock);
    }

    /**
     * @param nanoTime  this host's monotonic clock, in nanoseconds (tests pass their own)
     * @param wallClock this host's wall clock, used only until the server reports its time (nats-server 2.9)
     */
    public ServerClock(LongSupplier nanoTime, Clock wallClock) {
        this.nanoTime = nanoTime;
        this.wallClock = wallClock;
    }

    /**
     * Records a time read from the server, when it is later than what is known already.
     *
     * @param serverTime a time set by the server's clock that has passed (a stored message's timestamp, a stream
     *                   info's {@code ts}); {@code null} is ignored (a 2.9 server has no {@code ts})
     */
    public synchronized void observe(Instant serverTime) {
        if (serverTime == null) {
            return;
        }
        long nowNanos = nanoTime.getAsLong();
        Optional<Instant> known = nowAt(nowNanos);
        if (known.isEmpty() || serverTime.isAfter(known.get())) {
            seen = serverTime;
            seenAtNanos = nowNanos;
        }
    }

    /**
     * Records the server times a stream info carries: its {@code ts} (nanosecond-exact server time, nats-server 2.10
     * and later) and the time of the stream's last message (any version).
     *
     * @param info a stream info just received
     */
    public void observe(StreamInfo info) {
        if (info.getTimestamp() != null) {
            synchronized (this) {
                reportsTime = true;
            }
            observe(info.getTimestamp().toInstant());
        }
        if (info.getStreamState() != null && info.getStreamState().getLastTime() != null) {
            observe(info.getStreamState().getLastTime().toInstant());
        }
    }

    /**
     * @return whether the server reported its current time (nats-server 2.10 and later): from then on this host's
     * wall clock is never read
     */
    public synchronized boolean serverReportsTime() {
        return reportsTime;
    }

    /**
     * @return the latest server time this coordinator can vouch for (a lower bound of the server's now), empty
     * before any was seen; this host's wall clock counts too until the server reported its time
     */
    public synchronized Optional<Instant> now() {
        return nowAt(nanoTime.getAsLong());
    }

    /**
     * Records the stored time, then measures how long ago the server stored it.
     *
     * @param storedAt a message's stream timestamp
     * @return its age on the server's clock, never negative
     */
    public synchronized Duration ageOf(Instant storedAt) {
        observe(storedAt);
        Duration age = Duration.between(storedAt, now().orElse(storedAt));
        return age.isNegative() ? Duration.ZERO : age;
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
