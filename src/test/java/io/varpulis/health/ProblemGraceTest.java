package io.varpulis.health;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A transient JetStream problem counts only once it has lasted {@code down-after}; a
 * clean check restarts it.
 */
class ProblemGraceTest {

    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

    @Test
    void aProblemCountsOnlyOnceItHasLastedDownAfter_andACleanCheckStartsANewRun() {
        ProblemGrace grace = new ProblemGrace(Duration.ofSeconds(10));
        assertThat(grace.seen(T0)).isEqualTo(T0);
        assertThat(grace.elapsed(T0)).isFalse();
        assertThat(grace.seen(T0.plusSeconds(6))).as("the run began at the first problem").isEqualTo(T0);
        assertThat(grace.elapsed(T0.plusSeconds(6))).as("a leader election of 6 s").isFalse();
        assertThat(grace.seen(T0.plusSeconds(10))).isEqualTo(T0);
        assertThat(grace.elapsed(T0.plusSeconds(10))).isTrue();
        grace.cleared();
        assertThat(grace.elapsed(T0.plusSeconds(11))).isFalse();
        assertThat(grace.seen(T0.plusSeconds(12))).isEqualTo(T0.plusSeconds(12));
    }

    @Test
    void aZeroGraceCountsAProblemAtOnce() {
        ProblemGrace grace = new ProblemGrace(Duration.ZERO);
        grace.seen(T0);
        assertThat(grace.elapsed(T0)).isTrue();
    }

}
