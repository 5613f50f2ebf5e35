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
    void aWindowIsSlowWhenABatchAtItsMeanPaceOutlastsHalfOfAckWait() {
        PullBatchPace pace = new PullBatchPace("route_x", 500, Duration.ofSeconds(30));
        assertThat(window(pace, 29 * MS)).as("500 x 29 ms = 14.5 s < 15 s").isFalse();
        assertThat(window(pace, 31 * MS)).as("500 x 31 ms = 15.5 s > 15 s").isTrue();
        assertThat(window(pace, 1 * MS)).as("fast again").isFalse();
    }

    @Test
    void aSlowPipelineIsCheckedBeforeAWholeWindow_onFourTimedMessagesAtLeast() {
        PullBatchPace pace = new PullBatchPace("route_x", 500, Duration.ofSeconds(4));
        assertThat(pace.handled(300 * MS)).as("one message: not checked yet").isFalse();
        assertThat(pace.handled(30 * MS)).isFalse();
        assertThat(pace.handled(30 * MS)).isFalse();
        assertThat(pace.handled(40 * MS)).as("four timed, over a 64th of ack_wait: 500 x 100 ms > 2 s").isTrue();
    }

    @Test
    void oneStallDoesNotWarn_twoSlowChecksInARowDo_andAFastPaceClearsTheWarning() {
        PullBatchPace pace = new PullBatchPace("route_x", 500, Duration.ofSeconds(30));
        assertThat(window(pace, 1 * MS)).isFalse();
        assertThat(window(pace, 40 * MS)).as("one slow check").isTrue();
        assertThat(pace.warned()).isFalse();
        assertThat(window(pace, 1 * MS)).isFalse();
        assertThat(window(pace, 40 * MS)).isTrue();
        assertThat(window(pace, 40 * MS)).isTrue();
        assertThat(pace.warned()).as("two slow checks in a row").isTrue();
        assertThat(window(pace, 20 * MS)).as("500 x 20 ms = 10 s: not slow, not yet well within").isFalse();
        assertThat(pace.warned()).isTrue();
        assertThat(window(pace, 5 * MS)).isFalse();
        assertThat(pace.warned()).as("500 x 5 ms = 2.5 s, under a quarter of ack_wait").isFalse();
    }

    @Test
    void oneDeliveryInEightIsTimed() {
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
        assertThat(window(pace, 10_000 * MS)).isFalse();
    }

    /** @return whether any check in a window's worth of deliveries found it slow */
    private static boolean window(PullBatchPace pace, long nanos) {
        boolean slow = false;
        for (int i = 0; i < PullBatchPace.WINDOW; i++) {
            slow |= pace.handled(nanos);
        }
        return slow;
    }
}
