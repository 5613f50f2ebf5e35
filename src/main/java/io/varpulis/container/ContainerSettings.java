package io.varpulis.container;

import io.varpulis.jetstream.ConsumerSettings;
import org.springframework.util.backoff.BackOff;

import java.time.Duration;

/**
 * How one {@link DeliveryContainer} runs (SPEC section 18). Made with {@link #of} and
 * changed with the {@code with...} methods.
 *
 * @param concurrency deliveries applied at once, 1 or more
 * @param nakBackOff the delay of each failed attempt's nak, one step per attempt (a
 * consumer's server-side backoff does not apply to a nak)
 * @param applyTimeout the longest a delivery is kept in progress while it is applied (the
 * method or processor, and the effects it waits for; waits for an absent broker do not
 * count): then it is reported (ERROR, health) and settled as a failure by the rule
 * @param replaceHungAppliers whether an applying thread stuck past the apply timeout is
 * replaced by a new one, up to {@code concurrency} replacements (a listener's, whose
 * method may run on any thread); a pipeline's processor is single-threaded with its
 * state, so a route edge waits for its thread instead
 * @param errorHandler decides what a failed delivery becomes, or {@code null} for the
 * default rule
 * @param orderedBySubject whether deliveries of one subject are applied one at a time, in
 * the order received, by the same thread (with {@code concurrency} above 1)
 * @param idleInterval after how long without a delivery the container tells
 * {@code events} it is idle, or {@code null} for never
 * @param events told of the container's idleness and stop
 */
public record ContainerSettings(int concurrency, BackOff nakBackOff, Duration applyTimeout, boolean replaceHungAppliers,
        DeliveryErrorHandler errorHandler, boolean orderedBySubject, Duration idleInterval, ContainerEvents events) {

    /**
     * @throws IllegalArgumentException when concurrency is below 1, or the apply timeout
     * or the idle interval is not positive
     */
    public ContainerSettings {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be 1 or more, got " + concurrency);
        }
        if (applyTimeout == null || applyTimeout.isZero() || applyTimeout.isNegative()) {
            throw new IllegalArgumentException("the apply timeout must be positive, got " + applyTimeout);
        }
        if (idleInterval != null && (idleInterval.isZero() || idleInterval.isNegative())) {
            throw new IllegalArgumentException("the idle interval must be positive, got " + idleInterval);
        }
        if (events == null) {
            events = ContainerEvents.NONE;
        }
    }

    /**
     * @param consumer what every durable consumer runs with
     * @return one applying thread, the consumers' nak back-off and apply timeout, no
     * thread replaced, no error handler, no idle events (a route edge's, a heartbeat
     * consumer's)
     */
    public static ContainerSettings of(ConsumerSettings consumer) {
        return new ContainerSettings(1, consumer.nakBackOff().toBackOff(), consumer.applyTimeout(), false, null, false,
                null, ContainerEvents.NONE);
    }

    /**
     * @param concurrency deliveries applied at once
     * @return these settings with that concurrency
     */
    public ContainerSettings withConcurrency(int concurrency) {
        return new ContainerSettings(concurrency, nakBackOff, applyTimeout, replaceHungAppliers, errorHandler,
                orderedBySubject, idleInterval, events);
    }

    /**
     * @param nakBackOff the delays of the naks
     * @param applyTimeout the apply timeout
     * @return these settings with that back-off and apply timeout, and hung threads
     * replaced (a listener's)
     */
    public ContainerSettings forListener(BackOff nakBackOff, Duration applyTimeout) {
        return new ContainerSettings(concurrency, nakBackOff, applyTimeout, true, errorHandler, orderedBySubject,
                idleInterval, events);
    }

    /**
     * @param errorHandler decides what a failed delivery becomes, or {@code null}
     * @param orderedBySubject whether one subject's deliveries are applied in order
     * @return these settings with that error handler and ordering
     */
    public ContainerSettings withHandling(DeliveryErrorHandler errorHandler, boolean orderedBySubject) {
        return new ContainerSettings(concurrency, nakBackOff, applyTimeout, replaceHungAppliers, errorHandler,
                orderedBySubject, idleInterval, events);
    }

    /**
     * @param idleInterval after how long without a delivery it is idle, or {@code null}
     * @param events told of idleness and the stop
     * @return these settings with those events
     */
    public ContainerSettings withEvents(Duration idleInterval, ContainerEvents events) {
        return new ContainerSettings(concurrency, nakBackOff, applyTimeout, replaceHungAppliers, errorHandler,
                orderedBySubject, idleInterval, events);
    }

}
