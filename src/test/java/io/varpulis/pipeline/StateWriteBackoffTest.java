package io.varpulis.pipeline;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25, item 3: a state's write retries back off (50 ms doubling to 2 s), are counted, and start over only once a
 * write is confirmed, never after a mended chain whose writes time out again.
 */
class StateWriteBackoffTest {

    private final AtomicInteger counted = new AtomicInteger();
    private final StateWriteBackoff backoff = new StateWriteBackoff(counted::incrementAndGet);

    @Test
    void retriesDoubleFrom50MsUpTo2SecondsAndEachIsCounted() {
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            waits.add(backoff.nextRetryMillis());
        }

        assertThat(waits).containsExactly(50L, 100L, 200L, 400L, 800L, 1600L, 2000L, 2000L, 2000L);
        assertThat(counted).hasValue(9);
    }

    @Test
    void aConfirmedWriteStartsTheBackoffOver() {
        backoff.nextRetryMillis();
        backoff.nextRetryMillis();

        backoff.confirmed();

        assertThat(backoff.nextRetryMillis()).isEqualTo(50L);
    }
}
