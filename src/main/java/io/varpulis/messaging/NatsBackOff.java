package io.varpulis.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A {@link NatsListener}'s nak back-off: a failed attempt's nak waits {@link #delay()},
 * each next one {@link #multiplier()} times longer up to {@link #maxDelay()} (Spring
 * Boot's {@code backoff.*} names). Durations as {@code application.yml} writes them
 * ({@code 500ms}, {@code 1s}, {@code PT2S}); an empty or zero value keeps
 * {@code varpulis.nats.jetstream.consumer.backoff.*}, and
 * {@code varpulis.nats.listeners.<id>.backoff.*} overrides each.
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface NatsBackOff {

    /**
     * @return the first nak's delay; empty: the consumers' default (2 s)
     */
    String delay() default "";

    /**
     * @return how much longer each next delay is, 1 or more; 0: the consumers' default
     * (1, a fixed delay)
     */
    double multiplier() default 0;

    /**
     * @return the longest delay; empty: the consumers' default (30 s)
     */
    String maxDelay() default "";

    /**
     * @return how far each delay is moved either way, at random; empty: none
     */
    String jitter() default "";

}
