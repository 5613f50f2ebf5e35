package io.varpulis.support;

import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

import java.time.Duration;

/**
 * The one back-off policy of the project's waits (issue 31): Spring's
 * {@link ExponentialBackOff}, each wait double the last up to a ceiling, never giving up
 * by itself (callers bound their waits by their own deadline). The delivery container's
 * waits for the broker, the provisioning of streams and buckets, the connection at
 * start-up, the opening of a pipeline's state and a worker's registration all wait this
 * way, each with its own first wait and ceiling.
 */
public final class Backoffs {

    private Backoffs() {
    }

    /**
     * @param first the first wait
     * @param max the longest wait
     * @return the policy: {@code first}, doubling up to {@code max}
     */
    public static ExponentialBackOff doubling(Duration first, Duration max) {
        ExponentialBackOff backOff = new ExponentialBackOff(first.toMillis(), 2.0);
        backOff.setMaxInterval(max.toMillis());
        return backOff;
    }

    /**
     * @param first the first wait
     * @param max the longest wait
     * @return a new run of waits: {@code first}, doubling up to {@code max}, in ms
     * ({@link BackOffExecution#nextBackOff})
     */
    public static BackOffExecution start(Duration first, Duration max) {
        return doubling(first, max).start();
    }

}
