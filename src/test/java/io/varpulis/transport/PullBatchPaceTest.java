package io.varpulis.transport;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pace of a consumer's handler against its batch and ack_wait, checked every window of deliveries.
 */
class PullBatchPaceTest {

    private static final long MS = 1_000_000;

    @Test
    void aCheckIsSlowWhenABatchAtItsMeanPaceOutlastsHalfOfAckWait() {
        PullBatchPace pace = new PullBatchPace("route_x", 500, Duration.ofSeconds(30));
        assertThat(untilChecked(pace, 29 * MS)).as("500 x 29 ms = 14.5 s < 15 s").isFalse();
        assertThat(untilChecked(pace, 31 * MS)).as("500 x 31 ms = 15.5 s > 15 s").isTrue();
        assertThat(untilChecked(pace, 1 * MS)).as("fast again").isFalse();
    }

    @Test
    void aSlowPipelineIsCheckedBeforeAWholeWindow_onFourTimedMessagesAtLeast() {
        PullBatchPace pace = new PullBatchPace("route_x", 500, Duration.ofSeconds(4));
        assertThat(pace.handled(300 * MS)).as("one message: not checked yet").isFalse();
        assertThat(pace.handled(30 * MS)).isFalse();
        assertThat(pace.handled(30 * MS)).isFalse();
        assertThat(pace.checks()).isZero();
        assertThat(pace.handled(40 * MS)).as("four timed, over a 64th of ack_wait: 500 x 100 ms > 2 s").isTrue();
        assertThat(pace.checks()).isEqualTo(1);
    }

    @Test
    void oneStallDoesNotWarn_twoSlowChecksInARowDo_andAFastPaceClearsTheWarning() {
        PullBatchPace pace = new PullBatchPace("route_x", 500, Duration.ofSeconds(30));
        assertThat(untilChecked(pace, 1 * MS)).isFalse();
        assertThat(untilChecked(pace, 40 * MS)).as("one slow check").isTrue();
        assertThat(pace.warned()).isFalse();
        assertThat(untilChecked(pace, 1 * MS)).isFalse();
        assertThat(untilChecked(pace, 40 * MS)).isTrue();
        assertThat(untilChecked(pace, 40 * MS)).isTrue();
        assertThat(pace.warned()).as("two slow checks in a row").isTrue();
        assertThat(untilChecked(pace, 20 * MS)).as("500 x 20 ms = 10 s: not slow, not under a quarter of ack_wait")
                .isFalse();
        assertThat(pace.warned()).isTrue();
        assertThat(untilChecked(pace, 5 * MS)).isFalse();
        assertThat(pace.warned()).as("500 x 5 ms = 2.5 s, under a quarter of ack_wait").isFalse();
    }

    @Test
    void oneMessageInEightIsTimed() {
        PullBatchPace pace = new PullBatchPace("route_x", 500, Duration.ofSeconds(30));
        int timed = 0;
        for (int i = 0; i < 80; i++) {
            timed += pace.timeNext() ? 1 : 0;
        }
        assertThat(timed).isEqualTo(80 / PullBatchPace.SAMPLE_EVERY);
    }

    @Test
    void noAckWaitMeansNoWatch() {
        PullBatchPace pace = new PullBatchPace("route_x", 500, Duration.ZERO);
        assertThat(untilChecked(pace, 10_000 * MS)).isFalse();
    }

    /**
     * Feeds timed messages of one duration until exactly one more check has run.
     *
     * @return whether that check found the pace too slow
     */
    private static boolean untilChecked(PullBatchPace pace, long nanos) {
        int before = pace.checks();
        boolean slow;
        do {
            slow = pace.handled(nanos);
        } while (pace.checks() == before);
        return slow;
    }
}
