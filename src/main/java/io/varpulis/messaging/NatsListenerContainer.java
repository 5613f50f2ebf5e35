package io.varpulis.messaging;

import io.nats.client.api.ConsumerInfo;
import io.varpulis.container.ContainerErrors;
import io.varpulis.container.ContainerEvents;
import io.varpulis.container.ContainerSettings;
import io.varpulis.container.DeliveryContainer;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.container.StopReason;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.nats.Substrate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;

import java.time.Duration;
import java.util.Optional;

/**
 * Runs one {@link NatsListener} method on its durable consumer (SPEC sections 13 and 19),
 * in the manner of Spring Kafka's {@code MessageListenerContainer}: started, stopped,
 * paused and resumed by its id through the {@link NatsListenerEndpointRegistry}, each
 * step published as a {@link NatsListenerEvent}. While it runs, a
 * {@link DeliveryContainer} with {@code concurrency} applying threads owns the consumer:
 * its adapter converts, calls and publishes the return value ({@link ListenerAdapter}, or
 * {@link BatchListenerAdapter} for a batch method), and it acks, naks, waits for the
 * broker or parks, as for the cluster's route edges. A pause or a stop lets the
 * deliveries already received finish (within the drain timeout) and pulls no more: a
 * paused listener holds no delivery, and its consumer's pending grows until it resumes.
 */
public class NatsListenerContainer implements ContainerEvents {

    private static final Logger log = LoggerFactory.getLogger(NatsListenerContainer.class);

    /** What the container is doing. */
    public enum State {

        /** Not consuming (never started, stopped, or stopped by an error). */
        STOPPED,
        /** Consuming. */
        RUNNING,
        /** Not consuming until resumed. */
        PAUSED

    }

    private final ListenerEndpoint endpoint;

    private final ConsumerDeclaration consumer;

    private final DeliveryContainerFactory containers;

    private final DeliveryMeters meters;

    private final NatsTemplate template;

    private final ApplicationEventPublisher events;

    private final JetStreamAdmin admin;

    private volatile DeliveryContainer container;

    private volatile State state = State.STOPPED;

    private volatile Duration drainTimeout = Duration.ofSeconds(10);

    NatsListenerContainer(ListenerEndpoint endpoint, ConsumerDeclaration consumer, DeliveryContainerFactory containers,
            DeliveryMeters meters, NatsTemplate template, ApplicationEventPublisher events, JetStreamAdmin admin) {
        this.endpoint = endpoint;
        this.consumer = consumer;
        this.containers = containers;
        this.meters = meters;
        this.template = template;
        this.events = events;
        this.admin = admin;
    }

    /**
     * @return the listener's id
     */
    public String id() {
        return endpoint.id();
    }

    /**
     * @return the durable consumer it runs on
     */
    public ConsumerDeclaration consumer() {
        return consumer;
    }

    /**
     * @return what it is doing
     */
    public State state() {
        return state;
    }

    /**
     * @return whether it is consuming
     */
    public boolean isRunning() {
        DeliveryContainer running = container;
        return state == State.RUNNING && running != null && running.isRunning();
    }

    /**
     * @return whether it is paused
     */
    public boolean isPaused() {
        return state == State.PAUSED;
    }

    /**
     * @return whether it starts with the context ({@link NatsListener#autoStartup()})
     */
    public boolean isAutoStartup() {
        return endpoint.autoStartup();
    }

    /**
     * @return deliveries received and not yet settled
     */
    public int inFlight() {
        DeliveryContainer running = container;
        return running == null ? 0 : running.inFlight();
    }

    /**
     * @return the last throw while one of its deliveries was handled, if any
     */
    public Optional<ContainerErrors.LastError> lastError() {
        DeliveryContainer running = container;
        return Optional.ofNullable(running == null ? null : running.lastError());
    }

    /**
     * @return its consumer as the server has it (pending, ack pending), or empty on core
     * or when the server cannot be asked now
     */
    public Optional<ConsumerInfo> consumerInfo() {
        if (admin == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(admin.management().getConsumerInfo(consumer.stream(), consumer.durable()));
        }
        catch (Exception e) {
            return Optional.empty();
        }
    }

    /**
     * Creates the durable consumer if absent and starts consuming; a running container is
     * left as it is, a paused one resumes.
     * @throws IllegalStateException when the consumer cannot be created or bound (a
     * {@link NatsListenerEvent.FailedToStart} is published)
     */
    public synchronized void start() {
        if (state == State.RUNNING) {
            return;
        }
        if (state == State.PAUSED) {
            resume();
            return;
        }
        events.publishEvent(new NatsListenerEvent.Starting(this));
        try {
            consume();
        }
        catch (RuntimeException e) {
            events.publishEvent(new NatsListenerEvent.FailedToStart(this, e));
            throw e;
        }
        if (containers.transport().substrate() == Substrate.JETSTREAM) {
            log.info("listener {} ({}) consuming {} with durable {} on stream {}, concurrency {}{}", endpoint.id(),
                    endpoint.method(), consumer.filterSubject(), consumer.durable(), consumer.stream(),
                    endpoint.concurrency(), endpoint.method().batch() ? ", batches of " + endpoint.batchSize() : "");
        }
        else {
            log.warn(
                    "listener {} ({}) subscribed to {} on the core substrate, concurrency {}: fire-and-forget, an "
                            + "event it fails on is lost and nothing is redelivered or parked; set "
                            + "varpulis.nats.substrate=jetstream to make it durable",
                    endpoint.id(), endpoint.method(), consumer.filterSubject(), endpoint.concurrency());
        }
        events.publishEvent(new NatsListenerEvent.Started(this));
    }

    /**
     * Stops pulling and lets the deliveries already received finish (acked, nak'ed or
     * parked) within the drain timeout; what is left unacked is redelivered after
     * ack_wait. A {@link NatsListenerEvent.Stopped} is published.
     */
    public synchronized void stop() {
        if (state == State.STOPPED) {
            return;
        }
        boolean wasPaused = state == State.PAUSED;
        state = State.STOPPED;
        if (wasPaused) {
            events.publishEvent(new NatsListenerEvent.Stopped(this, StopReason.NORMAL, null));
            return;
        }
        log.info("listener {}: draining (up to {} ms)", endpoint.id(), drainTimeout.toMillis());
        container.drain(drainTimeout);
    }

    /**
     * Pauses: pulls no more, lets the deliveries already received finish within the drain
     * timeout; the consumer keeps what arrives meanwhile. A running container only.
     */
    public synchronized void pause() {
        if (state != State.RUNNING) {
            return;
        }
        state = State.PAUSED;
        container.drain(drainTimeout);
        log.info("listener {}: paused; its consumer {} keeps what arrives until it resumes", endpoint.id(),
                consumer.durable());
        events.publishEvent(new NatsListenerEvent.Paused(this));
    }

    /**
     * Resumes a paused container: consumes again from where the consumer is.
     */
    public synchronized void resume() {
        if (state != State.PAUSED) {
            return;
        }
        consume();
        log.info("listener {}: resumed", endpoint.id());
        events.publishEvent(new NatsListenerEvent.Resumed(this));
    }

    /**
     * @param timeout how long a stop or a pause lets received deliveries finish
     */
    void drainTimeout(Duration timeout) {
        this.drainTimeout = timeout;
    }

    private void consume() {
        ContainerSettings settings = containers.defaults()
            .withConcurrency(endpoint.concurrency())
            .forListener(endpoint.backOff().toBackOff(), endpoint.applyTimeout())
            .withHandling(
                    endpoint.errorHandler() == null ? null
                            : new ListenerErrorHandling(endpoint.id(), endpoint.errorHandler()),
                    endpoint.orderedBySubject())
            .withEvents(endpoint.idleInterval(), this);
        DeliveryContainer next = endpoint.method().batch()
                ? containers.createBatch(consumer, endpoint.id(), meters, settings, new BatchListenerAdapter(endpoint))
                : containers.create(consumer, endpoint.id(), meters, settings, new ListenerAdapter(endpoint, template));
        container = next.start();
        state = State.RUNNING;
    }

    @Override
    public void idle(DeliveryContainer container, Duration idleFor) {
        events.publishEvent(new NatsListenerEvent.Idle(this, idleFor));
    }

    @Override
    public void noLongerIdle(DeliveryContainer container, Duration idleFor) {
        events.publishEvent(new NatsListenerEvent.NoLongerIdle(this, idleFor));
    }

    @Override
    public void stopped(DeliveryContainer stopped, StopReason reason, Throwable cause) {
        if (reason == StopReason.ERROR) {
            state = State.STOPPED;
            events.publishEvent(new NatsListenerEvent.Stopped(this, reason, cause));
        }
        else if (stopped == container && state == State.STOPPED) {
            events.publishEvent(new NatsListenerEvent.Stopped(this, reason, cause));
        }
    }

    @Override
    public String toString() {
        return "listener " + endpoint.id() + " (" + state + ")";
    }

}
