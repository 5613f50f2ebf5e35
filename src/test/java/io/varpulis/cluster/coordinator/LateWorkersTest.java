package io.varpulis.cluster.coordinator;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25, item 3, without a broker: a worker silent past heartbeat-timeout is dead
 * unless the server shows it progressing, and then only up to three timeouts of silence.
 */
class LateWorkersTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(15);

    private final AtomicLong monotonic = new AtomicLong();

    private final AtomicReference<Map<String, Long>> onServer = new AtomicReference<>(floor(10));

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final LateWorkers late = new LateWorkers(TIMEOUT, w -> onServer.get(), monotonic::get, registry);

    @Test
    void aSilentWorkerThatTheServerShowsProgressingIsLateNotDeadAndCountedOnce() {
        assertThat(alive(Duration.ofSeconds(8))).isTrue();
        progress(floor(40));
        assertThat(alive(Duration.ofSeconds(16))).as("progress seen in the last timeout").isTrue();
        progress(floor(90));
        assertThat(alive(Duration.ofSeconds(30))).isTrue();

        assertThat(registry.counter("varpulis.cluster.workers.late").count()).isEqualTo(1.0);
    }

    @Test
    void aSilentWorkerWhoseProgressStoppedIsDeadOneTimeoutAfterItsLastProgress() {
        assertThat(alive(Duration.ofSeconds(8))).isTrue();
        progress(floor(40));
        assertThat(alive(Duration.ofSeconds(16))).isTrue();

        monotonic.addAndGet(TIMEOUT.plusSeconds(1).toNanos());

        assertThat(alive(Duration.ofSeconds(32))).as("nothing moved for a whole timeout").isFalse();
    }

    @Test
    void progressNeverKeepsAWorkerPastThreeTimeoutsOfSilence() {
        assertThat(alive(Duration.ofSeconds(8))).isTrue();
        progress(floor(40));

        assertThat(alive(TIMEOUT.multipliedBy(3).plusSeconds(1))).isFalse();
    }

    @Test
    void withoutEvidenceSilencePastTheTimeoutIsDeath() {
        LateWorkers blind = new LateWorkers(TIMEOUT, LateWorkers.Evidence.none(), monotonic::get, registry);

        assertThat(blind.alive("w1", Duration.ofSeconds(8))).isTrue();
        assertThat(blind.alive("w1", TIMEOUT)).isTrue();
        assertThat(blind.alive("w1", TIMEOUT.plusMillis(1))).isFalse();
    }

    @Test
    void aWorkerThatDidNothingSinceItWentSilentIsDeadAtTheTimeout() {
        assertThat(alive(Duration.ofSeconds(8))).isTrue();
        monotonic.addAndGet(Duration.ofSeconds(8).toNanos());

        assertThat(alive(Duration.ofSeconds(16))).isFalse();
    }

    @Test
    void aReadThatFailedThisTimeIsNoProgressAndNorIsItsAnswerTheNextTime() {
        onServer.set(Map.of("lease revision", 5L, "d1 ack floor", 10L));
        assertThat(alive(Duration.ofSeconds(8))).isTrue();
        progress(Map.of("lease revision", 5L));
        assertThat(alive(Duration.ofSeconds(10))).isTrue();
        progress(Map.of("lease revision", 5L, "d1 ack floor", 10L));
        assertThat(alive(Duration.ofSeconds(12))).isTrue();
        progress(Map.of());
        assertThat(alive(Duration.ofSeconds(14))).isTrue();

        progress(Map.of("lease revision", 5L, "d1 ack floor", 10L));

        assertThat(alive(Duration.ofSeconds(16))).as("the same numbers, parts missing in between").isFalse();
    }

    @Test
    void aFirstSampleWithoutAnswerThenAnAnswerIsNoProgress() {
        onServer.set(Map.of());
        assertThat(alive(Duration.ofSeconds(8))).isTrue();
        progress(floor(10));

        assertThat(alive(Duration.ofSeconds(16))).isFalse();
    }

    @Test
    void oneCounterGoingUpIsProgressEvenWhenAnotherWasNotRead() {
        onServer.set(Map.of("lease revision", 5L, "d1 ack floor", 10L));
        assertThat(alive(Duration.ofSeconds(8))).isTrue();
        progress(Map.of("lease revision", 6L));

        assertThat(alive(Duration.ofSeconds(16))).isTrue();
    }

    private static Map<String, Long> floor(long ackFloor) {
        return Map.of("d1 ack floor", ackFloor);
    }

    private boolean alive(Duration silence) {
        return late.alive("w1", silence);
    }

    private void progress(Map<String, Long> counters) {
        monotonic.addAndGet(Duration.ofSeconds(1).toNanos());
        onServer.set(counters);
    }

}
