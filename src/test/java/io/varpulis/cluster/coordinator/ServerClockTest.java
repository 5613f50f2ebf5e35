package io.varpulis.cluster.coordinator;

import org.junit.jupiter.api.Test;

import io.nats.client.api.StreamInfo;
import io.nats.client.support.JsonParser;
import org.junit.jupiter.api.BeforeEach;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Heartbeat ages on the server's clock alone (issue 25, item 4), without a broker: once
 * the server reported its time this host's wall clock is never read, so it may be any
 * distance ahead or behind.
 */
class ServerClockTest {

    private static final Instant SERVER_T0 = Instant.parse("2026-12-02T10:00:00Z");

    /** This host's wall clock, 30 s ahead of the server's. */
    private static final Clock AHEAD = Clock.fixed(SERVER_T0.plusSeconds(30), ZoneOffset.UTC);

    private final AtomicLong monotonic = new AtomicLong(123_456_789L);

    private final ServerClock clock = new ServerClock(monotonic::get, AHEAD);

    @BeforeEach
    void serverReportsItsTime() throws Exception {
        // A stream info of nats-server 2.10 or later carries "ts", the server's time.
        clock.observe(info(SERVER_T0, null));
        assertThat(clock.serverReportsTime()).isTrue();
    }

    @Test
    void aHeartbeatJustStoredIsZeroSecondsOldWhateverThisHostsWallClockSays() {
        assertThat(clock.ageOf(SERVER_T0)).as("this host's clock is 30 s ahead").isEqualTo(Duration.ZERO);
        advance(Duration.ofSeconds(5));
        assertThat(clock.ageOf(SERVER_T0.plusSeconds(5))).isEqualTo(Duration.ZERO);
    }

    @Test
    void aReplayedHeartbeatIsAsOldAsTheNewestServerTimeSeenSays() {
        clock.observe(info(SERVER_T0.plusSeconds(60), null));

        assertThat(clock.ageOf(SERVER_T0)).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void whenTheStreamLeaderChangesTheEstimateFollowsTheNewLeadersClockEvenBackwards() {
        // n1's clock runs 60 s ahead of the others; while it leads, its own stamps are
        // fresh.
        clock.observe(info(SERVER_T0.plusSeconds(60), "n1"));
        assertThat(clock.ageOf(SERVER_T0.plusSeconds(60))).isEqualTo(Duration.ZERO);

        clock.observe(info(SERVER_T0.plusSeconds(1), "n2"));

        assertThat(clock.now()).contains(SERVER_T0.plusSeconds(1));
        assertThat(clock.ageOf(SERVER_T0.plusSeconds(1))).as("a heartbeat n2 just stored is fresh, not 59 s old")
            .isEqualTo(Duration.ZERO);
    }

    @Test
    void aStampFromAnEarlierLeaderWhoseClockRanAheadDoesNotPinTheEstimate() {
        clock.observe(info(SERVER_T0, "n2"));
        // A heartbeat stored by n1 (60 s ahead) before n2 took over, delivered only now.
        assertThat(clock.ageOf(SERVER_T0.plusSeconds(60))).isEqualTo(Duration.ZERO);
        advance(Duration.ofSeconds(2));

        assertThat(clock.ageOf(SERVER_T0.plusSeconds(2))).as("n2's next heartbeat").isEqualTo(Duration.ZERO);
    }

    @Test
    void theServersNowAdvancesWithThisHostsMonotonicClockBetweenObservations() {
        clock.observe(SERVER_T0);
        advance(Duration.ofSeconds(20));

        assertThat(clock.now()).contains(SERVER_T0.plusSeconds(20));
        assertThat(clock.ageOf(SERVER_T0.plusSeconds(2))).isEqualTo(Duration.ofSeconds(18));
    }

    @Test
    void whileTheSameServerLeadsAnOlderServerTimeNeverMovesTheEstimateBack() {
        clock.observe(info(SERVER_T0.plusSeconds(30), null));
        clock.observe(info(SERVER_T0, null));
        clock.observe(SERVER_T0);
        clock.observe((Instant) null);

        assertThat(clock.now()).contains(SERVER_T0.plusSeconds(30));
    }

    @Test
    void onAServerThatReportsNoTimeThisHostsWallClockCountsSoAReplayIsStillFoundStale() {
        ServerClock v29 = new ServerClock(monotonic::get, AHEAD);
        v29.observe(SERVER_T0.minusSeconds(60));

        assertThat(v29.serverReportsTime()).isFalse();
        assertThat(v29.ageOf(SERVER_T0.minusSeconds(60))).isEqualTo(Duration.ofSeconds(90));
    }

    /**
     * A stream info as nats-server 2.10+ answers it: its time and, on a cluster, the
     * stream's leader.
     */
    private static StreamInfo info(Instant ts, String leader) {
        String cluster = leader == null ? "" : ", \"cluster\": {\"name\": \"c\", \"leader\": \"" + leader + "\"}";
        return new StreamInfo(JsonParser.parseUnchecked("{\"ts\": \"" + ts + "\"" + cluster + "}"));
    }

    private void advance(Duration duration) {
        monotonic.addAndGet(duration.toNanos());
    }

}
