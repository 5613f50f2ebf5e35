package io.varpulis.pipeline;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25, item 3: a state's write retries back off (50 ms doubling to 2 s), are
 * counted, and start over only once every write a mended chain sent again is confirmed,
 * never when only its first ones were.
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
    void theBackoffStartsOverOnlyOnceTheLastWriteSentAgainIsConfirmed() {
        Object first = new Object();
        Object last = new Object();
        backoff.nextRetryMillis();
        backoff.nextRetryMillis();
        backoff.mended(last);

        backoff.confirmed(first);
        assertThat(backoff.nextRetryMillis()).as("the first writes sent again were stored, the rest timed out")
            .isEqualTo(200L);
        backoff.mended(last);
        backoff.confirmed(first);
        backoff.confirmed(last);

        assertThat(backoff.nextRetryMillis()).isEqualTo(50L);
    }

    @Test
    void aChainMendedWithEveryWriteFoundStoredStartsTheBackoffOver() {
        backoff.nextRetryMillis();
        backoff.nextRetryMillis();

        backoff.mended(null);

        assertThat(backoff.nextRetryMillis()).isEqualTo(50L);
    }

    @Test
    void writesConfirmedWithoutAFailureLeaveTheBackoffAtItsFirstWait() {
        backoff.confirmed(new Object());

        assertThat(backoff.nextRetryMillis()).isEqualTo(50L);
    }

}
