package io.varpulis.container;

import io.varpulis.container.Outcome.Applied;
import io.varpulis.container.Outcome.BrokerAway;
import io.varpulis.container.Outcome.ParkFailed;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.GivenUpMessage;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.BackOffExecution;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs one durable consumer (SPEC section 18): owns its subscription, the threads that apply its deliveries
 * ({@code concurrency} of them), the deliveries it holds and their in-progress acknowledgements, its drain, and the
 * settlement of every delivery, so that ADR-007's promise is kept here and nowhere else:
 * <ol>
 * <li>each delivery is handed over by the client's dispatcher at once and held, kept in progress while it waits
 * ({@link InProgressKeeper}): nothing this process holds burns a delivery;</li>
 * <li>an applying thread decorates it ({@link io.varpulis.transport.DeliveryDecorator}: the process observation) and
 * gives it to the {@link DeliveryAdapter}, whose {@link Outcome} may come later (outputs, replies, state writes);</li>
 * <li>{@link Settlement} decides what it becomes, and this container does it: ack; nak; wait for the broker and
 * resume the adapter's step (Spring's {@link org.springframework.util.backoff.ExponentialBackOff}, 250 ms doubling
 * to 4 s); publish its death envelope with the {@link DeadLetterParker} and ack once the DLQ stored it; leave it for
 * the consumer's next owner; or count it stranded;</li>
 * <li>a message the server gives up on (its max-deliveries advisory) is read from the stream by its sequence and
 * parked ({@code server_gave_up}), counted and logged (SPEC section 9).</li>
 * </ol>
 * The meters ({@link DeliveryMeters}) are counted here from each decision; the observation reads the settlement from
 * the delivery itself. The order of the chain is fixed: meters (outermost, counting what settles), observation (its
 * scope around the adapter), then the adapter's own fencing before each effect.
 */
public final class DeliveryContainer implements DeliveryHandler, Consumption {

    private static final Logger log = LoggerFactory.getLogger(DeliveryContainer.class);

    /** How long an idle applying thread waits for a delivery before it checks whether the container closed, ms. */
    private static final long IDLE_POLL_MILLIS = 200;

    private final ConsumerDeclaration consumer;
    private final String unit;
    private final int concurrency;
    private final DeliveryAdapter adapter;
    private final DeliveryMeters meters;
    private final ContainerRuntime runtime;
    private final BrokerOutage outage;
    private final Set<Delivery> held = ConcurrentHashMap.newKeySet();
    private final BlockingQueue<Delivery> queue = new LinkedBlockingQueue<>();
    private final List<Thread> appliers = new ArrayList<>();
    private volatile Settlement.State state = Settlement.State.RUNNING;
    private volatile boolean closed;
    private volatile Consumption consumption;

    /**
     * @param consumer    the durable consumer
     * @param unit        the pipeline, listener or {@code coordinator:{id}}: the DLQ unit, the meters' tag
     * @param concurrency how many deliveries are applied at once, 1 or more
     * @param adapter     what is done with each delivery
     * @param meters      the unit's meters
     * @param runtime     what every container shares (transport, parker, settlement, threads)
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
        this.outage = new BrokerOutage(unit, consumer.durable(), runtime.backOffDescription());
    }

    /**
     * Starts the applying threads, then consumes (on JetStream the durable is created if absent, never updated).
     *
     * @return this container
     * @throws IllegalStateException when the consumer cannot be created or bound (the container is then closed)
     */
    public synchronized DeliveryContainer start() {
        if (consumption != null || closed) {
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
        } catch (RuntimeException e) {
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
     * @return deliveries received and not yet settled (queued, applied, or waiting for effects or the broker)
     */
    public int inFlight() {
        return held.size();
    }

    /**
     * @return whether it consumes
     */
    public boolean isRunning() {
        return consumption != null && state == Settlement.State.RUNNING && !closed;
    }

    @Override
    public void onDelivery(Delivery delivery) {
        held.add(delivery);
        queue.add(delivery);
    }

    @Override
    public void onGivenUp(GivenUpMessage message) {
        runtime.executor().execute(() -> parkGivenUp(message, null));
    }

    /**
     * Graceful stop: stops pulling, lets the deliveries already received be applied and settled within the timeout,
     * then stops; what is not settled by then is left unacked for redelivery.
     *
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
            } catch (InterruptedException e) {
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
     * Stops consuming: no new deliveries; those queued are left for the consumer's next owner (parked when it was
     * their last delivery), those being applied settle as their outcome says, waits for the broker give up.
     * Idempotent.
     */
    public void stop() {
        if (state == Settlement.State.RUNNING) {
            state = Settlement.State.STOPPED;
        }
        shutdown();
    }

    /**
     * Stops as {@link #stop()}, without any further effect: another writer owns what this container applies (SPEC
     * section 9), so everything it holds is left, unsettled, for the rightful owner.
     */
    public void fence() {
        state = Settlement.State.FENCED;
        shutdown();
    }

    private synchronized void shutdown() {
        if (closed) {
            return;
        }
        closed = true;
        if (state == Settlement.State.RUNNING) {
            state = Settlement.State.STOPPED;
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
            } catch (InterruptedException e) {
                delivery = null;
            }
            if (delivery != null) {
                process(delivery);
            } else if (closed && queue.isEmpty()) {
                return;
            }
        }
    }

    private void process(Delivery received) {
        if (received.attempt() > 1) {
            meters.redelivered();
        }
        Work work = new Work(received, runtime.decorator().decorate(consumer, received));
        if (state != Settlement.State.RUNNING) {
            settle(work, state == Settlement.State.FENCED ? Outcome.fenced(null)
                    : Outcome.stopped("its consumer stopped on this node"));
            return;
        }
        CompletionStage<Outcome> outcome;
        try {
            outcome = work.delivery.inContext(() -> adapter.handle(work.delivery));
        } catch (VirtualMachineError e) {
            held.remove(received);
            throw e;
        } catch (RuntimeException | Error e) {
            outcome = CompletableFuture.completedFuture(Outcome.failed(e));
        }
        settleWhenDone(work, outcome);
    }

    private void settleWhenDone(Work work, CompletionStage<Outcome> stage) {
        CompletableFuture<Outcome> future = stage == null
                ? CompletableFuture.completedFuture(Outcome.failed(new IllegalStateException("no outcome")))
                : stage.toCompletableFuture();
        if (future.isDone()) {
            settle(work, outcomeOf(future));
        } else {
            future.whenComplete((outcome, error) -> settle(work, outcome != null ? outcome
                    : Outcome.failed(error == null ? new IllegalStateException("no outcome") : unwrap(error))));
        }
    }

    private static Outcome outcomeOf(CompletableFuture<Outcome> done) {
        try {
            Outcome outcome = done.join();
            return outcome != null ? outcome : Outcome.failed(new IllegalStateException("no outcome"));
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            return Outcome.failed(unwrap(e));
        }
    }

    private void settle(Work work, Outcome outcome) {
        Delivery delivery = work.delivery;
        Decision decision = runtime.settlement().decide(outcome, delivery.attempt(), delivery.maxDeliver(), state);
        switch (decision.action()) {
            case ACK -> ack(work, ((Applied) outcome).elementsParked());
            case NAK -> nak(work, decision);
            case RETRY -> retry(work, outcome, decision);
            case PARK -> runtime.executor().execute(() -> park(work, decision));
            case LEAVE -> leave(work, decision);
            case STRANDED -> stranded(work, decision);
            default -> throw new IllegalStateException("no rule for " + decision);
        }
    }

    private void ack(Work work, int elementsParked) {
        try {
            work.delivery.ack();
        } catch (IllegalStateException e) {
            // Settled meanwhile, or the connection is closed: ack_wait redelivers it, applied idempotently.
            log.debug("{}: the ack of {} was not sent: {}", unit, work.delivery, e.toString());
        } finally {
            held.remove(work.received);
        }
        meters.applied(System.nanoTime() - work.started, elementsParked);
        work.gotThrough(outage);
    }

    private void nak(Work work, Decision decision) {
        log.warn("{}: {} failed ({}); nak'ed, redelivered in {} ms", unit, work.delivery, describe(decision.cause()),
                decision.delay().toMillis());
        try {
            work.delivery.nak(decision.delay());
        } catch (IllegalStateException e) {
            log.debug("{}: the nak of {} was not sent: {}", unit, work.delivery, e.toString());
        } finally {
            held.remove(work.received);
        }
    }

    private void leave(Work work, Decision decision) {
        log.debug("{}: {} left unacked for redelivery: {}", unit, work.delivery, decision.why());
        try {
            work.delivery.leave(decision.why());
        } catch (IllegalStateException settled) {
            log.debug("{}: {} was settled already", unit, work.delivery);
        } finally {
            held.remove(work.received);
        }
    }

    private void stranded(Work work, Decision decision) {
        log.error("{}: {} was neither applied nor parked ({}: {}), and the server will not deliver it again: recover "
                        + "it by hand from stream {} sequence {}", unit, work.delivery, decision.why(),
                describe(decision.cause()), work.delivery.stream(), work.delivery.streamSequence());
        meters.stranded();
        leave(work, decision);
    }

    /** Waits for the broker, keeping the delivery in progress, then runs again the step that met its absence. */
    private void retry(Work work, Outcome outcome, Decision decision) {
        meters.retried();
        outage.waiting(work.delivery, decision.cause());
        long wait = work.nextWait(runtime);
        CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS, runtime.executor())
                .execute(() -> resume(work, outcome));
    }

    private void resume(Work work, Outcome waited) {
        boolean givenUp = waited instanceof ParkFailed failed && failed.reason() == ParkReason.SERVER_GAVE_UP;
        if (state != Settlement.State.RUNNING && !givenUp) {
            settle(work, state == Settlement.State.FENCED ? Outcome.fenced(null)
                    : Outcome.stopped("its consumer stopped while waiting for the broker"));
            return;
        }
        if (waited instanceof ParkFailed failed) {
            park(work, Decision.park(failed.reason(), failed.cause(), "the DLQ may be back"));
            return;
        }
        CompletionStage<Outcome> again;
        try {
            again = work.delivery.inContext(((BrokerAway) waited).resume());
        } catch (VirtualMachineError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            again = CompletableFuture.completedFuture(Outcome.failed(e));
        }
        settleWhenDone(work, again);
    }

    /** Publishes the death envelope, in the delivery's context; acks once the DLQ stored it. */
    private void park(Work work, Decision decision) {
        Delivery delivery = work.delivery;
        CompletableFuture<PublishReceipt> receipt;
        try {
            receipt = delivery.inContext(() -> runtime.parker().publish(delivery, unit, consumer.durable(),
                    decision.reason(), decision.cause()));
        } catch (RuntimeException e) {
            receipt = CompletableFuture.failedFuture(e);
        }
        receipt.whenComplete((stored, error) -> {
            if (error != null) {
                settle(work, new ParkFailed(decision.reason(), decision.cause(), unwrap(error)));
                return;
            }
            try {
                delivery.parked(decision.reason());
            } catch (IllegalStateException e) {
                log.debug("{}: the ack of parked {} was not sent: {}", unit, delivery, e.toString());
            } finally {
                held.remove(work.received);
            }
            meters.parked(decision.reason());
            work.gotThrough(outage);
            log.warn("{}: parked {} in {} at DLQ sequence {} ({}: {})", unit, delivery, stored.subject(),
                    stored.sequence(), decision.reason().tag(), describe(decision.cause()));
        });
    }

    /** Reads the message the server gave up on from its stream, and parks it; the broker away is waited out. */
    private void parkGivenUp(GivenUpMessage message, BackOffExecution waits) {
        Optional<Delivery> stored;
        try {
            stored = message.load();
        } catch (IOException | RuntimeException e) {
            BackOffExecution next = waits != null ? waits : runtime.backOff().start();
            long wait = next.nextBackOff();
            log.warn("{}: the server gave up on {}, which cannot be read yet ({}); trying again in {} ms", unit,
                    message, e.getMessage(), wait);
            CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS, runtime.executor())
                    .execute(() -> parkGivenUp(message, next));
            return;
        }
        if (stored.isEmpty()) {
            meters.stranded();
            log.error("{}: the server gave up on {} without an ack, and the stream no longer holds it (its max_age "
                    + "passed, or it was deleted): it was neither applied nor parked", unit, message);
            return;
        }
        log.warn("{}: the server gave up on {} without an ack; parking it from the stream", unit, message);
        Work work = new Work(stored.get(), stored.get());
        settle(work, Outcome.poison(ParkReason.SERVER_GAVE_UP, new IllegalStateException("the server stopped "
                + "delivering it after " + message.deliveries() + " deliveries without an ack (durable "
                + message.durable() + ")")));
    }

    private static String describe(Throwable cause) {
        if (cause == null) {
            return "no error";
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.toString();
    }

    private static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    @Override
    public String toString() {
        return "container of " + unit + " on " + consumer.durable();
    }

    /** One delivery's way through the container. */
    private static final class Work {
        /** As the transport delivered it (what the container holds). */
        private final Delivery received;
        /** As decorated for processing (what is settled). */
        private final Delivery delivery;
        private final long started = System.nanoTime();
        private BackOffExecution waits;
        private volatile boolean waited;

        private Work(Delivery received, Delivery delivery) {
            this.received = received;
            this.delivery = delivery;
        }

        private long nextWait(ContainerRuntime runtime) {
            if (waits == null) {
                waits = runtime.backOff().start();
            }
            waited = true;
            return waits.nextBackOff();
        }

        private void gotThrough(BrokerOutage outage) {
            if (waited) {
                outage.recovered();
            }
        }
    }
}
