package io.varpulis.container;

import io.varpulis.dlq.DeadLetterParker;
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
 * @param decorator decorates each delivery processed (its observation)
 * @param threads the keeper of held deliveries, the executor of parks and retries, the
 * applying threads' factory
 * @param backOff the waits while the broker is away
 * @param givenUpBackOff the waits to read a message the server gave up on, which stop
 * after {@value GivenUpParks#GIVEN_UP_PATIENCE_MINUTES} minutes
 * @param containers the process's running containers, for the health
 */
record ContainerRuntime(ClusterTransport transport, DeadLetterParker parker, DeliveryDecorator decorator,
        Threads threads, ExponentialBackOff backOff, ExponentialBackOff givenUpBackOff, RunningContainers containers) {

    /**
     * The containers' threads.
     *
     * @param keeper keeps held deliveries in progress
     * @param executor runs parks, retries and advisories off the client's threads (on the
     * caller's thread once it is shut down)
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

    void started(DeliveryContainer container) {
        containers.add(container);
    }

    void stopped(DeliveryContainer container) {
        containers.remove(container);
    }

    String backOffDescription() {
        return backOff.getInitialInterval() + " ms doubling to " + backOff.getMaxInterval() + " ms";
    }
}
