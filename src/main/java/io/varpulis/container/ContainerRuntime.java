package io.varpulis.container;

import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.DeliveryDecorator;
import org.springframework.util.backoff.ExponentialBackOff;

import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * What every {@link DeliveryContainer} of a process shares, built by the
 * {@link DeliveryContainerFactory}.
 *
 * @param transport consumes and publishes
 * @param parker publishes death envelopes
 * @param settlement decides what each delivery becomes
 * @param decorator decorates each delivery processed (its observation)
 * @param threads the keeper of held deliveries, the executor of parks and retries, the
 * applying threads' factory
 * @param backOff the waits while the broker is away
 */
record ContainerRuntime(ClusterTransport transport, DeadLetterParker parker, Settlement settlement,
        DeliveryDecorator decorator, Threads threads, ExponentialBackOff backOff) {

    /**
     * The containers' threads.
     *
     * @param keeper keeps held deliveries in progress
     * @param executor runs parks, retries and advisories off the client's threads
     * @param factory makes the containers' applying threads
     */
    record Threads(InProgressKeeper keeper, Executor executor, ThreadFactory factory) {
    }

    InProgressKeeper keeper() {
        return threads.keeper();
    }

    Executor executor() {
        return threads.executor();
    }

    String backOffDescription() {
        return backOff.getInitialInterval() + " ms doubling to " + backOff.getMaxInterval() + " ms";
    }
}
