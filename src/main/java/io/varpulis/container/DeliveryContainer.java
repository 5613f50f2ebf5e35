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
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;

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
 * <li>{@link Settlement} decides what it becomes, and this container does it: ack; nak;
 * wait for the broker and resume the adapter's step (Spring's
 * {@link org.springframework.util.backoff.ExponentialBackOff}, 250 ms doubling to 4 s);
 * publish its death envelope with the {@link DeadLetterParker} and ack once the DLQ
 * stored it; leave it for the consumer's next owner; or count it stranded;</li>
 * <li>a message the server gives up on (its max-deliveries advisory) is read from the
 * stream by its sequence and parked ({@code server_gave_up}), counted and logged (SPEC
 * section 9).</li>
 * </ol>
 * The meters ({@link DeliveryMeters}) are counted here from each decision; the
 * observation reads the settlement from the delivery itself. The order of the chain is
 * fixed: meters (outermost, counting what settles), observation (its scope around the
 * adapter), then the adapter's own fencing before each effect.
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

    private final int concurrency;

    private final DeliveryAdapter adapter;

    private final DeliveryMeters meters;

    private final ContainerRuntime runtime;

    private final HeldDeliveries held;

    // Lock-free hand-over (issue 34): a LinkedBlockingQueue's put and take contended for
    // its take lock on every
    // delivery, the client's dispatcher signalling the applier (a twentieth of the
    // listener's applying thread).
    private final BlockingQueue<Delivery> queue = new LinkedTransferQueue<>();

    private final List<Thread> appliers = new ArrayList<>();

    private final ContainerState state = new ContainerState();

    private final Settler settler;

    private volatile Consumption consumption;

    /**
     * @param consumer the durable consumer
     * @param unit the pipeline, listener or {@code coordinator:{id}}: the DLQ unit, the
     * meters' tag
     * @param concurrency how many deliveries are applied at once, 1 or more
     * @param adapter what is done with each delivery
     * @param meters the unit's meters
     * @param runtime what every container shares (transport, parker, settlement, threads)
     */
    DeliveryContainer(ConsumerDeclaration consumer, String unit, int concurrency, DeliveryAdapter adapter,
            DeliveryMeters meters, ContainerRuntime runtime) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be 1 or more, got " + concurrency);
        }
        this.consumer = consumer;
        this.unit = unit;
        this.concurrency = concurrency;
        this.adapter = adapter;
        this.meters = meters;
        this.runtime = runtime;
        this.held = new HeldDeliveries(toString(), meters);
        this.settler = new Settler(consumer, unit, meters, runtime, state, held);
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
        for (int i = 0; i < concurrency; i++) {
            Thread applier = runtime.threads().factory().newThread(this::applyLoop);
            applier.setName("varpulis-apply-" + consumer.durable() + (concurrency > 1 ? "-" + i : ""));
            appliers.add(applier);
            applier.start();
        }
        try {
            consumption = runtime.transport().consume(consumer, this);
        }
        catch (RuntimeException e) {
            shutdown();
            throw e;
        }
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

    @Override
    public void onDelivery(Delivery delivery) {
        if (state.closed()) {
            // Pulled before the consumption closed and handed over after: left for the
            // consumer's next owner.
            delivery.leave("its container closed");
            return;
        }
        held.hold(delivery);
        queue.add(delivery);
    }

    @Override
    public void onGivenUp(GivenUpMessage message) {
        runtime.executor().execute(() -> settler.parkGivenUp(message, null));
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
        if (running != null) {
            running.close();
        }
        runtime.keeper().forget(held);
    }

    private void applyLoop() {
        while (true) {
            Delivery delivery;
            try {
                delivery = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException e) {
                delivery = null;
            }
            if (delivery != null) {
                process(delivery);
            }
            else if (state.closed() && queue.isEmpty()) {
                return;
            }
        }
    }

    private void process(Delivery received) {
        if (received.attempt() > 1) {
            meters.redelivered();
        }
        DeliveryWork work = new DeliveryWork(received, runtime.decorator().decorate(consumer, received));
        if (state.get() != Settlement.State.RUNNING) {
            settler.settle(work, state.notApplied());
            return;
        }
        CompletionStage<Outcome> outcome;
        try {
            outcome = work.delivery.inContext(() -> adapter.handle(work.delivery));
        }
        catch (VirtualMachineError e) {
            held.release(received);
            throw e;
        }
        catch (RuntimeException | Error e) {
            outcome = CompletableFuture.completedFuture(Outcome.failed(e));
        }
        settler.settleWhenDone(work, outcome);
    }

    @Override
    public String toString() {
        return "container of " + unit + " on " + consumer.durable();
    }

}
