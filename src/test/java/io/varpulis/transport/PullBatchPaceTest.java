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
    void aSlowPipelineIsCheckedBeforeAWholeWindow() {
        PullBatchPace pace = new PullBatchPace("route_x", 500, Duration.ofSeconds(4));
        assertThat(pace.handled(30 * MS)).as("under a 64th of ack_wait timed: not checked yet").isFalse();
        assertThat(pace.handled(40 * MS)).as("a 64th of ack_wait timed: checked, 500 x 35 ms > 2 s").isTrue();
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
