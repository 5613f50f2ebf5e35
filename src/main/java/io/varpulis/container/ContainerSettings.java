package io.varpulis.container;

import io.varpulis.jetstream.ConsumerSettings;
import org.springframework.util.backoff.BackOff;

import java.time.Duration;

/**
 * How one {@link DeliveryContainer} runs (SPEC section 18).
 *
 * @param concurrency deliveries applied at once, 1 or more
 * @param nakBackOff the delay of each failed attempt's nak, one step per attempt (a
 * consumer's server-side backoff does not apply to a nak)
 * @param applyTimeout the longest a delivery is kept in progress while it is applied (the
 * method or processor, and the effects it waits for; waits for an absent broker do not
 * count): then it is reported (ERROR, health) and released for redelivery
 * @param replaceHungAppliers whether an applying thread stuck past the apply timeout is
 * replaced by a new one, up to {@code concurrency} replacements (a listener's, whose
 * method may run on any thread); a pipeline's processor is single-threaded with its
 * state, so a route edge waits for its thread instead
 * @param errorHandler decides what a failed delivery becomes, or {@code null} for the
 * default rule
 */
public record ContainerSettings(int concurrency, BackOff nakBackOff, Duration applyTimeout, boolean replaceHungAppliers,
        DeliveryErrorHandler errorHandler) {

    /**
     * @throws IllegalArgumentException when concurrency is below 1 or the apply timeout
     * is not positive
     */
    public ContainerSettings {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be 1 or more, got " + concurrency);
        }
        if (applyTimeout == null || applyTimeout.isZero() || applyTimeout.isNegative()) {
            throw new IllegalArgumentException("the apply timeout must be positive, got " + applyTimeout);
        }
    }

    /**
     * @param consumer what every durable consumer runs with
     * @return one applying thread, the consumers' nak back-off and apply timeout, no
     * thread replaced (a route edge's, a heartbeat consumer's)
     */
    public static ContainerSettings of(ConsumerSettings consumer) {
        return new ContainerSettings(1, consumer.nakBackOff().toBackOff(), consumer.applyTimeout(), false, null);
    }

    /**
     * @param concurrency deliveries applied at once
     * @return these settings with that concurrency
     */
    public ContainerSettings withConcurrency(int concurrency) {
        return new ContainerSettings(concurrency, nakBackOff, applyTimeout, replaceHungAppliers, errorHandler);
    }

}
