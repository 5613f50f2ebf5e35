package io.varpulis.jetstream;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

import java.time.Duration;

/**
 * The delays of a failed delivery's naks, one step per attempt (SPEC section 18): the
 * first attempt's nak waits {@code delay}, each next one {@code multiplier} times longer,
 * up to {@code maxDelay}, each moved by up to {@code jitter} either way. A consumer's
 * server-side {@code backoff} does not apply to a nak (nats-server issues 5856 and 6311),
 * so the schedule is the client's; the names are Spring Boot's
 * ({@code spring.kafka.retry.topic.backoff.*}).
 *
 * @param delay the first nak's delay
 * @param multiplier how much longer each next delay is; 1 for a fixed delay
 * @param maxDelay the longest delay
 * @param jitter how far each delay may be moved either way, at random; zero for none
 */
public record NakBackOff(Duration delay, double multiplier, Duration maxDelay, Duration jitter) {

    /**
     * ADR-007's: a fixed 2 s; a multiplier set alone grows it up to 30 s (Spring's
     * {@link ExponentialBackOff#DEFAULT_MAX_INTERVAL}).
     */
    public static final NakBackOff DEFAULT = new NakBackOff(Duration.ofSeconds(2), 1.0, Duration.ofSeconds(30),
            Duration.ZERO);

    /**
     * @throws IllegalArgumentException when a delay is negative, the multiplier below 1,
     * or the jitter longer than the first delay
     */
    public NakBackOff {
        if (delay.isNegative() || maxDelay.isNegative() || jitter.isNegative()) {
            throw new IllegalArgumentException(
                    "back-off delays may not be negative: " + delay + ", " + maxDelay + ", jitter " + jitter);
        }
        if (multiplier < 1) {
            throw new IllegalArgumentException("a back-off's multiplier is 1 or more, got " + multiplier);
        }
        if (jitter.compareTo(delay) > 0) {
            throw new IllegalArgumentException(
                    "a back-off's jitter (" + jitter + ") may not exceed its delay (" + delay + ")");
        }
    }

    /**
     * @param delay every nak's delay
     * @return a fixed back-off
     */
    public static NakBackOff fixed(Duration delay) {
        return new NakBackOff(delay, 1.0, delay, Duration.ZERO);
    }

    /**
     * @param delay the first delay, or {@code null} to keep this one's
     * @param multiplier the multiplier, or {@code null} to keep this one's
     * @param maxDelay the longest delay, or {@code null} to keep this one's
     * @param jitter the jitter, or {@code null} to keep this one's
     * @return this back-off with the given values
     */
    public NakBackOff with(Duration delay, Double multiplier, Duration maxDelay, Duration jitter) {
        return new NakBackOff(delay != null ? delay : this.delay, multiplier != null ? multiplier : this.multiplier,
                maxDelay != null ? maxDelay : this.maxDelay, jitter != null ? jitter : this.jitter);
    }

    /**
     * @return Spring's back-off of these delays, which never stops (max_deliver bounds
     * the attempts)
     */
    public BackOff toBackOff() {
        ExponentialBackOff backOff = new ExponentialBackOff(delay.toMillis(), multiplier);
        backOff.setMaxInterval(Math.max(delay.toMillis(), maxDelay.toMillis()));
        backOff.setJitter(jitter.toMillis());
        return backOff;
    }

    @Override
    public String toString() {
        return multiplier == 1.0 ? delay.toMillis() + " ms"
                : delay.toMillis() + " ms times " + multiplier + " up to " + maxDelay.toMillis() + " ms";
    }

}
