package io.varpulis.autoconfigure;

import io.varpulis.support.PropertyChecks;
import org.springframework.validation.Errors;

import java.time.Duration;

/**
 * The nak back-off of every durable consumer,
 * {@code varpulis.nats.jetstream.consumer.backoff.*} (the names of Spring Boot's
 * {@code spring.kafka.retry.topic.backoff.*}): a failed attempt's nak waits
 * {@code delay}, each next one {@code multiplier} times longer up to {@code max-delay}. A
 * listener's {@code varpulis.nats.listeners.<id>.backoff.*} overrides each value.
 */
public class BackOffProperties {

    /** The first nak's delay (ADR-007: 2 s). */
    private Duration delay = Duration.ofSeconds(2);

    /** How much longer each next nak's delay is; 1 for a fixed delay. */
    private double multiplier = 1.0;

    /** The longest nak delay. */
    private Duration maxDelay = Duration.ofSeconds(30);

    /** How far each delay is moved either way, at random (at most the first delay). */
    private Duration jitter = Duration.ZERO;

    public Duration getDelay() {
        return delay;
    }

    public void setDelay(Duration delay) {
        this.delay = delay;
    }

    public double getMultiplier() {
        return multiplier;
    }

    public void setMultiplier(double multiplier) {
        this.multiplier = multiplier;
    }

    public Duration getMaxDelay() {
        return maxDelay;
    }

    public void setMaxDelay(Duration maxDelay) {
        this.maxDelay = maxDelay;
    }

    public Duration getJitter() {
        return jitter;
    }

    public void setJitter(Duration jitter) {
        this.jitter = jitter;
    }

    /**
     * @param prefix the bean path of this object, with its trailing dot
     * @param errors where violations go
     */
    void validate(String prefix, Errors errors) {
        check(prefix, errors, delay, multiplier, maxDelay, jitter);
    }

    /**
     * Checks one back-off's values, each {@code null} when unset.
     * @param prefix the bean path of the back-off, with its trailing dot
     * @param errors where violations go
     * @param delay the first delay
     * @param multiplier the multiplier
     * @param maxDelay the longest delay
     * @param jitter the jitter
     */
    static void check(String prefix, Errors errors, Duration delay, Double multiplier, Duration maxDelay,
            Duration jitter) {
        PropertyChecks.atLeast(errors, prefix + "delay", delay, Duration.ZERO);
        PropertyChecks.atLeast(errors, prefix + "maxDelay", maxDelay, Duration.ZERO);
        PropertyChecks.atLeast(errors, prefix + "jitter", jitter, Duration.ZERO);
        if (multiplier != null && multiplier < 1) {
            errors.rejectValue(prefix + "multiplier", "Min", new Object[] { 1 },
                    "must be at least 1 (1 for a fixed delay), got " + multiplier);
        }
        if (jitter != null && delay != null && jitter.compareTo(delay) > 0) {
            errors.rejectValue(prefix + "jitter", "Max", new Object[] { delay },
                    "must not exceed the delay (" + delay.toMillis() + " ms), got " + jitter.toMillis() + " ms");
        }
    }

}
