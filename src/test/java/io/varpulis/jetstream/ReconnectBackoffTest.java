package io.varpulis.jetstream;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait before a leader-reach reconnect doubles after each one, up to 8 times, and
 * resets on a passed check.
 */
class ReconnectBackoffTest {

    @Test
    void eachForcedReconnectDoublesTheWaitUpToEightTimesAndAPassedCheckResetsIt() {
        ReconnectBackoff backoff = new ReconnectBackoff(Duration.ofSeconds(15));
        assertThat(backoff.current()).isEqualTo(Duration.ofSeconds(15));
        backoff.reconnected();
        assertThat(backoff.current()).isEqualTo(Duration.ofSeconds(30));
        backoff.reconnected();
        backoff.reconnected();
        backoff.reconnected();
        assertThat(backoff.current()).as("capped at 8 x reconnect-after").isEqualTo(Duration.ofSeconds(120));
        backoff.passed();
        assertThat(backoff.current()).isEqualTo(Duration.ofSeconds(15));
    }

}
