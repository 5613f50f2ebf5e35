package io.varpulis.container;

import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.GivenUpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/**
 * Runs one durable consumer (SPEC section 18): owns its subscription, the threads that
 * apply its deliveries ({@code concurrency} of them), the deliveries it holds and their
 * in-progress acknowledgements, its drain, and the settlement of every delivery, so that
 * ADR-007's promise is kept here and nowhere else:
 * <ol>
 * <li>each delivery is handed over by the client's dispatcher at once and held, kept in
 * progress while it waits ({@link InProgressKeeper}): nothing this process holds burns a
 * delivery;</li>
 * <li>an applying thread decorates it ({@link io.varpulis.transport.DeliveryDecorator}:
 * the process observation) and gives it to the {@link DeliveryAdapter}, whose
 * {@link Outcome} may come later (outputs, replies, state writes);</li>
 * <li>{@link Settlement} decides what it becomes, and the {@link Settler} does it: ack;
 * nak after the back-off's delay; wait for the broker and resume the adapter's step; park
 * with the {@link DeadLetterParker} and ack once the DLQ stored it; skip; leave it for
 * the consumer's next owner; or count it stranded;</li>
 * <li>a message the server gives up on (its max-deliveries advisory) is read from the
 * stream by its sequence and parked ({@code server_gave_up}), counted and logged (SPEC
 * section 9).</li>
 * </ol>
 * It never dies in silence: whatever a delivery's handling throws (the decorator or an
 * observation handler, the adapter, the settling) is an outcome of that delivery or, for
 * a decorator, leaves it undecorated; counted ({@code varpulis.consumer.errors}) and
 * logged. Only a {@link VirtualMachineError} other than a {@link StackOverflowError}
 * stops it, loudly: an ERROR, its state stopped with {@link StopReason#ERROR}, the health
 * showing it. An apply that runs past the apply timeout is reported (ERROR, health) and
 * settled as a failure by the rule (nak, park on its last delivery); a listener's stuck
 * thread is replaced.
 */
public final class DeliveryContainer implements DeliveryHandler, Consumption {

    private static final Logger log = LoggerFactory.getLogger(DeliveryContainer.class);

    private final ConsumerDeclaration consumer;

    private final String unit;

    private final ContainerSettings settings;

    private final ContainerRuntime runtime;

    private final ContainerState state = new ContainerState();

    private final HeldDeliveries held;

    private final ContainerErrors errors;

    private final Settler settler;

    private final GivenUpParks givenUp;

    private final Appliers appliers;

    private volatile Consumption consumption;

    /**
     * @param consumer the durable consumer
     * @param unit the pipeline, listener or {@code coordinator:{id}}: the DLQ unit, the
     * meters' tag
     * @param settings its concurrency, back-off and apply timeout
     * @param adapter what is done with each delivery, or {@code null} with a batch
     * adapter
     * @param batchAdapter what is done with each batch of deliveries, or {@code null}
     * @param meters the unit's meters
     * @param runtime what every container shares (transport, parker, threads)
     */
    DeliveryContainer(ConsumerDeclaration consumer, String unit, ContainerSettings settings, DeliveryAdapter adapter,
            BatchDeliveryAdapter batchAdapter, DeliveryMeters meters, ContainerRuntime runtime) {
        this.consumer = consumer;
        this.unit = unit;
        this.settings = settings;
        this.runtime = runtime;
        this.errors = new ContainerErrors(toString(), meters);
        this.held = new HeldDeliveries(toString(), meters, settings.applyTimeout(), settings.idleInterval(),
                new Watcher());
        ContainerParts parts = new ContainerParts(consumer, unit, settings, meters, state, held, errors, runtime);
        this.settler = new Settler(parts, new Settlement(settings.nakBackOff()), settings.errorHandler(), this::died);
        this.givenUp = new GivenUpParks(parts, settler::settle);
        this.appliers = new Appliers(parts, settings, new DeliveryProcessor(parts, adapter, batchAdapter, settler),
                this::died);
    }

    /**
     * Starts the applying threads, then consumes (on JetStream the durable is created if
     * absent, never updated).
     * @return this container
     * @throws IllegalStateException when the consumer cannot be created or bound (the
     * container is then closed)
     */
    public synchronized DeliveryContainer start() {
        if (consumption != null || state.closed()) {
            throw new IllegalStateException("container of " + consumer.durable() + " was started already");
        }
        runtime.keeper().keep(held);
        appliers.start();
        try {
            consumption = runtime.transport().consume(consumer, this);
        }
        catch (RuntimeException e) {
            shutdown();
            throw e;
        }
        runtime.started(this);
        return this;
    }

    /**
     * @return the durable consumer it runs
     */
    public ConsumerDeclaration consumer() {
        return consumer;
    }

    /**
     * @return the durable consumer's name
     */
    @Override
    public String name() {
        return consumer.durable();
    }

    /**
     * @return the unit its deliveries are applied for (DLQ unit, meters' tag)
     */
    public String unit() {
        return unit;
    }

    /**
     * @return deliveries received and not yet settled (queued, applied, or waiting for
     * effects or the broker)
     */
    public int inFlight() {
        return held.size();
    }

    /**
     * @return whether it consumes
     */
    public boolean isRunning() {
        return consumption != null && state.get() == Settlement.State.RUNNING && !state.closed();
    }

    /**
     * @return why it stopped, or {@code null} while it runs
     */
    public StopReason stopReason() {
        return state.reason();
    }

    /**
     * @return what stopped it ({@link StopReason#ERROR}), or {@code null}
     */
    public Throwable stopCause() {
        return state.cause();
    }

    /**
     * @return the stream sequences (0 on core) of the deliveries whose apply ran past the
     * apply timeout and has not returned yet
     */
    public List<Long> hungSequences() {
        return held.hung().stream().map(work -> work.received.streamSequence()).toList();
    }

    /**
     * @return the last throw while one of its deliveries was handled, or {@code null}
     */
    public ContainerErrors.LastError lastError() {
        return errors.last();
    }

    /**
     * @return how long an apply may run before it is reported and released
     */
    public Duration applyTimeout() {
        return settings.applyTimeout();
    }

    @Override
    public void onDelivery(Delivery delivery) {
        if (state.closed()) {
            // Pulled before the consumption closed and handed over after: settled by the
            // rule as not applied here (left for the next owner, parked on its last).
            settler.settle(new DeliveryWork(delivery, delivery), state.notApplied());
            return;
        }
        held.hold(delivery);
        appliers.offer(delivery);
    }

    @Override
    public void onGivenUp(GivenUpMessage message) {
        givenUp.park(message);
    }

    /**
     * Graceful stop: stops pulling, lets the deliveries already received be applied and
     * settled within the timeout, then stops; an apply still running then is kept in
     * progress until it returns (and settles) or its apply timeout releases it, so it is
     * not redelivered elsewhere while it runs here.
     * @param timeout how long to wait, at most
     */
    @Override
    public void drain(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Consumption running = consumption;
        if (running != null) {
            running.drain(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        while (!held.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!held.isEmpty()) {
            log.warn(
                    "{} on {}: {} delivery(ies) still in flight after the drain timeout; kept in progress until "
                            + "their applies return or their apply timeout releases them",
                    unit, consumer.durable(), held.size());
        }
        shutdown();
    }

    /**
     * Stops, as {@link #stop()}.
     */
    @Override
    public void close() {
        stop();
    }

    /**
     * Stops consuming: no new deliveries; those queued are left for the consumer's next
     * owner (parked when it was their last delivery), those being applied settle as their
     * outcome says, waits for the broker give up. Idempotent.
     */
    public void stop() {
        state.stop();
        shutdown();
    }

    /**
     * Stops as {@link #stop()}, without any further effect: another writer owns what this
     * container applies (SPEC section 9), so everything it holds is left, unsettled, for
     * the rightful owner.
     */
    public void fence() {
        state.fence();
        shutdown();
    }

    private synchronized void shutdown() {
        if (!state.close()) {
            return;
        }
        Consumption running = consumption;
        try {
            if (running != null) {
                running.close();
            }
        }
        finally {
            held.close();
            givenUp.close();
            if (state.reason() != StopReason.ERROR) {
                runtime.stopped(this);
            }
            tell(events -> events.stopped(this, state.reason(), state.cause()));
        }
    }

    /** Tells the container's events on the settling threads; a throw is logged. */
    private void tell(java.util.function.Consumer<ContainerEvents> event) {
        if (settings.events() == ContainerEvents.NONE) {
            return;
        }
        runtime.executor().execute(() -> {
            try {
                event.accept(settings.events());
            }
            catch (RuntimeException e) {
                log.warn("{}: a listener of its events threw {}", this, e.toString(), e);
            }
        });
    }

    /**
     * A {@link VirtualMachineError} reached the container: it stops, loudly, and leaves
     * what it holds for redelivery.
     */
    private void died(Throwable error) {
        if (state.reason() != null) {
            log.error("{}, already stopped ({}), met {}", this, state.reason(), error.toString(), error);
            return;
        }
        log.error("{} stopped by {}: it applies nothing more; what it holds is left for redelivery (after ack_wait, "
                + "to wherever the consumer runs next). Restart the process: a JVM in this state may not recover", this,
                error.toString(), error);
        state.stop(StopReason.ERROR, error);
        errors.stoppedByError();
        shutdown();
        for (Delivery queued : appliers.takeQueued()) {
            settler.settle(new DeliveryWork(queued, queued), state.notApplied());
        }
    }

    /**
     * An apply that ran past the apply timeout: reported, released for redelivery by the
     * rule, and its thread replaced where the container may.
     */
    private void timedOut(DeliveryWork work) {
        Delivery delivery = work.received;
        errors.applyTimedOut();
        log.error(
                "{}: {} (stream {} sequence {}) was not applied within the apply timeout of {} s: released for "
                        + "redelivery, so another instance may apply it; a thread dump of this process shows what "
                        + "{} waits for",
                this, delivery, delivery.stream(), delivery.streamSequence(), settings.applyTimeout().toSeconds(),
                work.applyingOn() != null ? work.applyingOn().getName() : "its outcome");
        settler.settleTimedOut(work, Outcome.failed(ErrorStage.LISTENER,
                new ApplyTimeoutException(unit, delivery.streamSequence(), settings.applyTimeout())));
        Thread stuck = work.applyingOn();
        if (stuck != null) {
            appliers.replace(stuck);
        }
    }

    @Override
    public String toString() {
        return "container of " + unit + " on " + consumer.durable();
    }

    /** What the keeper's sweeps tell: applies past their timeout, idleness. */
    private final class Watcher implements HeldDeliveries.Watcher {

        @Override
        public void timedOut(DeliveryWork work) {
            // Off the keeper's one thread: an error handler asked about it may be slow.
            runtime.executor().execute(() -> DeliveryContainer.this.timedOut(work));
        }

        @Override
        public void idle(Duration idleFor) {
            tell(events -> events.idle(DeliveryContainer.this, idleFor));
        }

        @Override
        public void noLongerIdle(Duration idleFor) {
            tell(events -> events.noLongerIdle(DeliveryContainer.this, idleFor));
        }

    }

}
