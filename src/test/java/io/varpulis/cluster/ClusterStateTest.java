package io.varpulis.cluster;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coordinator's bookkeeping, without a broker.
 */
class ClusterStateTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(15);

    private final MutableClock clock = new MutableClock();
    private final ClusterState state = new ClusterState(clock);

    @Test
    void workerThatRegistersAgainAfterBeingUnhealthyIsReadyUntilItsNextTimeout() {
        state.register(request("w1"));
        clock.advance(TIMEOUT.plusSeconds(1));
        assertThat(state.expire(TIMEOUT)).containsExactly("w1");

        state.register(request("w1"));

        assertThat(state.expire(TIMEOUT)).as("a registration is a sign of life, like a heartbeat").isEmpty();
        assertThat(state.worker("w1").orElseThrow().isReady()).isTrue();
        clock.advance(TIMEOUT.plusSeconds(1));
        assertThat(state.expire(TIMEOUT)).containsExactly("w1");
    }

    @Test
    void workerIsUnhealthyOnlyAfterTheTimeoutWithoutAHeartbeat() {
        state.register(request("w1"));
        clock.advance(TIMEOUT.minusSeconds(1));
        state.heartbeat("w1", new WorkerHeartbeat(0, 0, List.of()), clock.instant());
        clock.advance(TIMEOUT.minusSeconds(1));

        assertThat(state.expire(TIMEOUT)).isEmpty();
        clock.advance(Duration.ofSeconds(2));
        assertThat(state.expire(TIMEOUT)).containsExactly("w1");
        assertThat(state.worker("w1").orElseThrow().status()).isEqualTo(WorkerRecord.UNHEALTHY);
    }

    @Test
    void replayedHeartbeatCountsFromWhenItWasSentNotWhenItWasApplied() {
        state.register(request("w1"));
        var sent = clock.instant();
        clock.advance(TIMEOUT.minusSeconds(1));
        state.heartbeat("w1", new WorkerHeartbeat(0, 0, List.of()), sent);
        clock.advance(Duration.ofSeconds(2));

        assertThat(state.expire(TIMEOUT)).as("alive at the send time, not at the replay").containsExactly("w1");
    }

    private static Registration.Request request(String workerId) {
        return new Registration.Request(workerId, "host:8080", null, new Registration.Capacity(2, 0, 32), "jetstream");
    }

    private static final class MutableClock extends Clock {
        private Instant now = Instant.parse("2026-11-30T12:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
