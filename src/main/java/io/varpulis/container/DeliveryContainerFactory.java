package io.varpulis.container;

import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.support.Backoffs;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.DeliveryDecorator;
import org.springframework.util.backoff.ExponentialBackOff;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Makes the {@link DeliveryContainer} of each durable consumer a process runs (route
 * edges, a service's listeners, the coordinator's heartbeats), in the manner of Spring
 * Kafka's listener container factory: they share the transport, the
 * {@link DeadLetterParker}, the decorator of each delivery (its observation), and the
 * threads that keep their deliveries in progress and settle them off the client's
 * threads. Closing it stops those threads; close the containers first.
 */
public class DeliveryContainerFactory implements AutoCloseable {

    /**
     * First wait before the broker is tried again; doubles up to
     * {@link #MAX_BROKER_WAIT}.
     */
    public static final Duration FIRST_BROKER_WAIT = Duration.ofMillis(250);

    /** Longest wait between two tries while the broker is unavailable. */
    public static final Duration MAX_BROKER_WAIT = Duration.ofSeconds(4);

    /**
     * Threads that settle off the client's threads (parks, resumed steps, given-up
     * messages read from their streams): each task is short (a publish handed to the
     * client, a stream read bounded by the request timeout), so a few serve every
     * container, and the rest wait in their queue instead of growing threads without
     * bound.
     */
    private static final int SETTLING_THREADS = 4;

    private final ContainerRuntime runtime;

    private final ContainerSettings defaults;

    private final ScheduledExecutorService sweeper;

    private final ThreadPoolExecutor settling;

    /**
     * @param transport consumes and publishes
     * @param parker publishes death envelopes
     * @param defaults the settings of a container made without its own (one applying
     * thread, the consumers' nak back-off and apply timeout)
     * @param decorator decorates each delivery processed ({@link DeliveryDecorator#NONE}:
     * none)
     */
    public DeliveryContainerFactory(ClusterTransport transport, DeadLetterParker parker, ContainerSettings defaults,
            DeliveryDecorator decorator) {
        this(transport, parker, defaults, decorator, DaemonThreads.named("varpulis-apply"));
    }

    /**
     * @param transport consumes and publishes
     * @param parker publishes death envelopes
     * @param defaults the settings of a container made without its own (one applying
     * thread, the consumers' nak back-off and apply timeout)
     * @param decorator decorates each delivery processed ({@link DeliveryDecorator#NONE}:
     * none)
     * @param appliers makes the threads that apply deliveries (Spring Boot's virtual
     * threads when {@code spring.threads.virtual.enabled}, else daemon platform threads);
     * each is named {@code varpulis-apply-<durable>}
     */
    public DeliveryContainerFactory(ClusterTransport transport, DeadLetterParker parker, ContainerSettings defaults,
            DeliveryDecorator decorator, ThreadFactory appliers) {
        this.defaults = defaults;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-in-progress"));
        this.settling = new ThreadPoolExecutor(SETTLING_THREADS, SETTLING_THREADS, 1, TimeUnit.MINUTES,
                new LinkedBlockingQueue<>(), DaemonThreads.named("varpulis-settle"));
        settling.allowCoreThreadTimeOut(true);
        Executor settle = task -> {
            try {
                settling.execute(task);
            }
            catch (RejectedExecutionException shutDown) {
                task.run();
            }
        };
        ExponentialBackOff givenUp = Backoffs.doubling(FIRST_BROKER_WAIT, MAX_BROKER_WAIT);
        givenUp.setMaxElapsedTime(Duration.ofMinutes(GivenUpParks.GIVEN_UP_PATIENCE_MINUTES).toMillis());
        this.runtime = new ContainerRuntime(transport, parker, decorator,
                new ContainerRuntime.Threads(new InProgressKeeper(sweeper), settle, appliers),
                Backoffs.doubling(FIRST_BROKER_WAIT, MAX_BROKER_WAIT), givenUp, new RunningContainers());
    }

    /**
     * @param consumer the durable consumer (created if absent when the container starts)
     * @param unit the pipeline, listener or {@code coordinator:{id}}: the DLQ unit and
     * the meters' tag
     * @param meters the unit's meters
     * @param concurrency deliveries applied at once, 1 or more
     * @param adapter what is done with each delivery
     * @return the container, not started, with the default back-off and apply timeout
     * @throws IllegalArgumentException when concurrency is below 1
     */
    public DeliveryContainer create(ConsumerDeclaration consumer, String unit, DeliveryMeters meters, int concurrency,
            DeliveryAdapter adapter) {
        return create(consumer, unit, meters, defaults.withConcurrency(concurrency), adapter);
    }

    /**
     * @param consumer the durable consumer (created if absent when the container starts)
     * @param unit the pipeline, listener or {@code coordinator:{id}}: the DLQ unit and
     * the meters' tag
     * @param meters the unit's meters
     * @param settings its concurrency, back-off and apply timeout
     * @param adapter what is done with each delivery
     * @return the container, not started
     */
    public DeliveryContainer create(ConsumerDeclaration consumer, String unit, DeliveryMeters meters,
            ContainerSettings settings, DeliveryAdapter adapter) {
        return new DeliveryContainer(consumer, unit, settings, adapter, null, meters, runtime);
    }

    /**
     * @param consumer the durable consumer (created if absent when the container starts)
     * @param unit the listener: the DLQ unit and the meters' tag
     * @param meters the unit's meters
     * @param settings its concurrency, back-off and apply timeout
     * @param adapter what is done with each batch of deliveries
     * @return the container, not started
     */
    public DeliveryContainer createBatch(ConsumerDeclaration consumer, String unit, DeliveryMeters meters,
            ContainerSettings settings, BatchDeliveryAdapter adapter) {
        return new DeliveryContainer(consumer, unit, settings, null, adapter, meters, runtime);
    }

    /**
     * @return the settings of a container made without its own
     */
    public ContainerSettings defaults() {
        return defaults;
    }

    /**
     * @return the containers running, and those an error stopped (for the health)
     */
    public RunningContainers containers() {
        return runtime.containers();
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
