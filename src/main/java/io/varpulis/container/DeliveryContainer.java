package io.varpulis.container;

import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.GivenUpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

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
 * released for redelivery; a listener's stuck thread is replaced.
 */
public final class DeliveryContainer implements DeliveryHandler, Consumption {

    private static final Logger log = LoggerFactory.getLogger(DeliveryContainer.class);

    /**
     * How long an idle applying thread waits for a delivery before it checks whether the
     * container closed, ms.
     */
    private static final long IDLE_POLL_MILLIS = 200;

    private final ConsumerDeclaration consumer;

    private final String unit;

    private final ContainerSettings settings;

    private final DeliveryAdapter adapter;

    private final BatchDeliveryAdapter batchAdapter;

    private final DeliveryMeters meters;

    private final ContainerRuntime runtime;

    private final HeldDeliveries held;

    // Lock-free hand-over (issue 34): a LinkedBlockingQueue's put and take contended for
    // its take lock on every delivery. One queue, or one per applying thread when one
    // subject's deliveries are applied in order.
    private final BlockingQueue<Delivery>[] queues;

    private final List<Applier> appliers = new CopyOnWriteArrayList<>();

    private final AtomicInteger replaced = new AtomicInteger();

    private final ContainerState state = new ContainerState();

    private final ContainerErrors errors;

    private final Settler settler;

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
    @SuppressWarnings("unchecked")
    DeliveryContainer(ConsumerDeclaration consumer, String unit, ContainerSettings settings, DeliveryAdapter adapter,
            BatchDeliveryAdapter batchAdapter, DeliveryMeters meters, ContainerRuntime runtime) {
        this.consumer = consumer;
        this.unit = unit;
        this.settings = settings;
        this.adapter = adapter;
        this.batchAdapter = batchAdapter;
        this.meters = meters;
        this.runtime = runtime;
        this.queues = new BlockingQueue[settings.orderedBySubject() ? settings.concurrency() : 1];
        for (int i = 0; i < queues.length; i++) {
            queues[i] = new LinkedTransferQueue<>();
        }
        this.errors = new ContainerErrors(toString(), meters);
        this.held = new HeldDeliveries(toString(), meters, settings.applyTimeout(), settings.idleInterval(),
                new Watcher());
        this.settler = new Settler(consumer, unit, meters, runtime, new Settlement(settings.nakBackOff()),
                settings.errorHandler(), state, held, errors, this::died);
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
        for (int i = 0; i < settings.concurrency(); i++) {
            startApplier(queues[i % queues.length]);
        }
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
        (queues.length == 1 ? queues[0] : queues[Math.floorMod(delivery.subject().hashCode(), queues.length)])
            .add(delivery);
    }

    @Override
    public void onGivenUp(GivenUpMessage message) {
        settler.parkGivenUp(message);
    }

    /**
     * Graceful stop: stops pulling, lets the deliveries already received be applied and
     * settled within the timeout, then stops; what is not settled by then is left unacked
     * for redelivery.
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
            log.warn("{} on {}: {} delivery(ies) still in flight after the drain timeout; left unacked for "
                    + "redelivery", unit, consumer.durable(), held.size());
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
            runtime.keeper().forget(held);
            settler.close();
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

    private void startApplier(BlockingQueue<Delivery> queue) {
        Applier applier = new Applier(queue);
        Thread thread = runtime.threads().factory().newThread(applier);
        thread.setName("varpulis-apply-" + consumer.durable()
                + (settings.concurrency() > 1 || !appliers.isEmpty() ? "-" + appliers.size() : ""));
        applier.thread = thread;
        appliers.add(applier);
        thread.start();
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
        meters.stoppedByError();
        shutdown();
        for (BlockingQueue<Delivery> queue : queues) {
            for (Delivery queued; (queued = queue.poll()) != null;) {
                settler.settle(new DeliveryWork(queued, queued), state.notApplied());
            }
        }
    }

    /**
     * An apply that ran past the apply timeout: reported, released for redelivery by the
     * rule, and its thread replaced where the container may.
     */
    private void timedOut(DeliveryWork work) {
        Delivery delivery = work.received;
        meters.applyTimedOut();
        log.error(
                "{}: {} (stream {} sequence {}) was not applied within the apply timeout of {} s: released for "
                        + "redelivery, so another instance may apply it; a thread dump of this process shows what "
                        + "{} waits for",
                this, delivery, delivery.stream(), delivery.streamSequence(), settings.applyTimeout().toSeconds(),
                work.applyingOn() != null ? work.applyingOn().getName() : "its outcome");
        settler.settleWhileApplying(work, Outcome.failed(ErrorStage.LISTENER,
                new ApplyTimeoutException(unit, delivery.streamSequence(), settings.applyTimeout())));
        Thread stuck = work.applyingOn();
        if (stuck == null || !settings.replaceHungAppliers()) {
            return;
        }
        for (Applier applier : appliers) {
            if (applier.thread == stuck && !applier.abandoned) {
                applier.abandoned = true;
                if (replaced.incrementAndGet() <= settings.concurrency()) {
                    startApplier(applier.queue);
                    log.warn("{}: {} is replaced by a new applying thread ({} replaced so far, at most {})", this,
                            stuck.getName(), replaced.get(), settings.concurrency());
                }
                else {
                    log.error("{}: {} is stuck and no more threads are started for it ({} already replaced): "
                            + "restart the service", this, stuck.getName(), settings.concurrency());
                }
            }
        }
    }

    private void process(Delivery received) {
        DeliveryWork work = prepare(received);
        if (work != null) {
            CompletionStage<Outcome> outcome = apply(work);
            work.returned();
            settler.settleWhenDone(work, outcome);
        }
    }

    /**
     * A delivery about to be applied, decorated and watched; {@code null} when it is
     * settled without an apply (the container stopped, or an earlier delivery of it still
     * hangs here).
     */
    private DeliveryWork prepare(Delivery received) {
        if (received.attempt() > 1) {
            meters.redelivered();
        }
        DeliveryWork work = new DeliveryWork(received, decorate(received));
        if (state.get() != Settlement.State.RUNNING) {
            settler.settle(work, state.notApplied());
            return null;
        }
        if (held.stillApplying(received.streamSequence())) {
            settler.settle(work, Outcome.failed(ErrorStage.LISTENER, new IllegalStateException(
                    "an earlier delivery of it is still being applied here, past its apply timeout; not applied twice "
                            + "at once in one process")));
            return null;
        }
        held.applying(work, Thread.currentThread());
        return work;
    }

    /**
     * Applies a batch: each delivery prepared and settled on its own, the adapter called
     * once for those to apply.
     */
    private void processBatch(List<Delivery> received) {
        List<DeliveryWork> works = new ArrayList<>(received.size());
        List<Delivery> deliveries = new ArrayList<>(received.size());
        for (Delivery delivery : received) {
            DeliveryWork work = prepare(delivery);
            if (work != null) {
                works.add(work);
                deliveries.add(work.delivery);
            }
        }
        if (works.isEmpty()) {
            return;
        }
        List<CompletionStage<Outcome>> outcomes;
        try {
            outcomes = batchAdapter.handle(deliveries);
            if (outcomes == null || outcomes.size() != works.size()) {
                throw new IllegalStateException(
                        "the batch adapter returned " + (outcomes == null ? "no" : outcomes.size()) + " outcomes for "
                                + works.size() + " deliveries");
            }
        }
        catch (Throwable e) {
            rethrowFatal(e);
            CompletionStage<Outcome> failed = CompletableFuture.completedFuture(Outcome.failed(ErrorStage.LISTENER, e));
            outcomes = java.util.Collections.nCopies(works.size(), failed);
        }
        for (int i = 0; i < works.size(); i++) {
            works.get(i).returned();
            settler.settleWhenDone(works.get(i), outcomes.get(i));
        }
    }

    /**
     * The delivery as the decorator makes it; the delivery itself when the decorator (an
     * observation handler or convention) throws: it is applied and settled unobserved.
     */
    private Delivery decorate(Delivery received) {
        try {
            return runtime.decorator().decorate(consumer, received);
        }
        catch (Throwable e) {
            rethrowFatal(e);
            errors.report(ErrorStage.OBSERVATION, received, e);
            return received;
        }
    }

    /**
     * Runs the adapter in the delivery's context. The adapter's own failures become its
     * outcome; a failure of the context itself (a scope an observation handler opens or
     * closes) is counted, and the adapter runs without it when it had not started.
     */
    private CompletionStage<Outcome> apply(DeliveryWork work) {
        AdapterCall call = new AdapterCall(work.delivery);
        try {
            return work.delivery.inContext(call);
        }
        catch (Throwable e) {
            rethrowFatal(e);
            errors.report(ErrorStage.OBSERVATION, work.received, e);
            if (call.result != null) {
                return call.result;
            }
            work.undecorate();
            return new AdapterCall(work.received).get();
        }
    }

    /**
     * @throws VirtualMachineError the error, when it is one that stops a container (a
     * {@link StackOverflowError} unwound its stack and is a failure of one delivery)
     */
    static void rethrowFatal(Throwable error) {
        if (Settler.isFatal(error)) {
            throw (VirtualMachineError) error;
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
            DeliveryContainer.this.timedOut(work);
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

    /** One call of the adapter, whose failures are its outcome. */
    private final class AdapterCall implements Supplier<CompletionStage<Outcome>> {

        private final Delivery delivery;

        private volatile CompletionStage<Outcome> result;

        AdapterCall(Delivery delivery) {
            this.delivery = delivery;
        }

        @Override
        public CompletionStage<Outcome> get() {
            CompletionStage<Outcome> outcome;
            try {
                outcome = adapter.handle(delivery);
            }
            catch (Throwable e) {
                rethrowFatal(e);
                outcome = CompletableFuture.completedFuture(Outcome.failed(ErrorStage.LISTENER, e));
            }
            result = outcome;
            return outcome;
        }

    }

    /**
     * One applying thread's loop; it ends when the container closes, or once replaced.
     */
    private final class Applier implements Runnable {

        private final BlockingQueue<Delivery> queue;

        private volatile Thread thread;

        private volatile boolean abandoned;

        Applier(BlockingQueue<Delivery> queue) {
            this.queue = queue;
        }

        @Override
        public void run() {
            try {
                loop();
            }
            catch (VirtualMachineError e) {
                died(e);
            }
            catch (Throwable e) {
                // process() turns every other throw into an outcome: reaching here is a
                // bug of ours, told, and the container stops rather than wedge.
                died(e);
            }
        }

        private void loop() {
            while (!abandoned) {
                Delivery delivery;
                try {
                    delivery = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
                }
                catch (InterruptedException e) {
                    delivery = null;
                }
                if (delivery != null && batchAdapter != null) {
                    List<Delivery> batch = new ArrayList<>(Math.min(batchAdapter.batchSize(), 64));
                    batch.add(delivery);
                    queue.drainTo(batch, batchAdapter.batchSize() - 1);
                    processBatch(batch);
                }
                else if (delivery != null) {
                    process(delivery);
                }
                else if (state.closed() && queue.isEmpty()) {
                    return;
                }
            }
            log.info("{}: {} returned after its apply timeout and ends (a new thread took its place)",
                    DeliveryContainer.this, Thread.currentThread().getName());
        }

    }

}
