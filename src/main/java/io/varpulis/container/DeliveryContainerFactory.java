package io.varpulis.container;

import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.support.Backoffs;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.DeliveryDecorator;
import org.springframework.util.backoff.ExponentialBackOff;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Makes the {@link DeliveryContainer} of each durable consumer a process runs (route
 * edges, a service's listeners, the coordinator's heartbeats), in the manner of Spring
 * Kafka's listener container factory: they share the transport, the
 * {@link DeadLetterParker}, the {@link Settlement} rules, the decorator of each delivery
 * (its observation), and the threads that keep their deliveries in progress and settle
 * them off the client's threads. Closing it stops those threads; close the containers
 * first.
 */
public class DeliveryContainerFactory implements AutoCloseable {

    /**
     * First wait before the broker is tried again; doubles up to
     * {@link #MAX_BROKER_WAIT}.
     */
    public static final Duration FIRST_BROKER_WAIT = Duration.ofMillis(250);

    /** Longest wait between two tries while the broker is unavailable. */
    public static final Duration MAX_BROKER_WAIT = Duration.ofSeconds(4);

    private final ContainerRuntime runtime;

    private final ScheduledExecutorService sweeper;

    private final ExecutorService settling;

    /**
     * @param transport consumes and publishes
     * @param parker publishes death envelopes
     * @param nakDelay the redelivery delay of a failed apply (SPEC section 4: 2 s)
     * @param decorator decorates each delivery processed ({@link DeliveryDecorator#NONE}:
     * none)
     */
    public DeliveryContainerFactory(ClusterTransport transport, DeadLetterParker parker, Duration nakDelay,
            DeliveryDecorator decorator) {
        this.sweeper = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-in-progress"));
        this.settling = Executors.newCachedThreadPool(DaemonThreads.named("varpulis-settle"));
        ExponentialBackOff backOff = Backoffs.doubling(FIRST_BROKER_WAIT, MAX_BROKER_WAIT);
        this.runtime = new ContainerRuntime(transport, parker, new Settlement(nakDelay), decorator,
                new ContainerRuntime.Threads(new InProgressKeeper(sweeper), settling,
                        DaemonThreads.named("varpulis-apply")),
                backOff);
    }

    /**
     * @param consumer the durable consumer (created if absent when the container starts)
     * @param unit the pipeline, listener or {@code coordinator:{id}}: the DLQ unit and
     * the meters' tag
     * @param meters the unit's meters
     * @param concurrency deliveries applied at once, 1 or more
     * @param adapter what is done with each delivery
     * @return the container, not started
     * @throws IllegalArgumentException when concurrency is below 1
     */
    public DeliveryContainer create(ConsumerDeclaration consumer, String unit, DeliveryMeters meters, int concurrency,
            DeliveryAdapter adapter) {
        return new DeliveryContainer(consumer, unit, concurrency, adapter, meters, runtime);
    }

    /**
     * @return the transport the containers consume from
     */
    public ClusterTransport transport() {
        return runtime.transport();
    }

    /**
     * @return the parker the containers park with
     */
    public DeadLetterParker parker() {
        return runtime.parker();
    }

    @Override
    public void close() {
        runtime.keeper().close();
        sweeper.shutdownNow();
        settling.shutdown();
    }

}
