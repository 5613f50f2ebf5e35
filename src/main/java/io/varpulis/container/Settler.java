package io.varpulis.container;

import io.varpulis.container.Outcome.Applied;
import io.varpulis.container.Outcome.BrokerAway;
import io.varpulis.container.Outcome.ParkFailed;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.GivenUpMessage;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.BackOffExecution;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Does what {@link Settlement} decided for each delivery of one
 * {@link DeliveryContainer}: ack, nak, wait for the broker and resume the adapter's step,
 * publish the death envelope and ack once the DLQ stored it, leave it, or count it
 * stranded; and parks the messages the server gave up on, read from the stream by their
 * sequence. Counts each decision in the container's meters, and releases the delivery
 * from the container's held set once settled.
 */
final class Settler {

    private static final Logger log = LoggerFactory.getLogger(Settler.class);

    private final ConsumerDeclaration consumer;

    private final String unit;

    private final DeliveryMeters meters;

    private final ContainerRuntime runtime;

    private final ContainerState state;

    private final HeldDeliveries held;

    private final BrokerOutage outage;

    /**
     * @param consumer the durable consumer
     * @param unit the DLQ unit and meters' tag
     * @param meters the unit's meters
     * @param runtime the parker, the settlement rules, the threads
     * @param state whether the container still runs
     * @param held the container's held deliveries, each released once settled
     */
    Settler(ConsumerDeclaration consumer, String unit, DeliveryMeters meters, ContainerRuntime runtime,
            ContainerState state, HeldDeliveries held) {
        this.consumer = consumer;
        this.unit = unit;
        this.meters = meters;
        this.runtime = runtime;
        this.state = state;
        this.held = held;
        this.outage = new BrokerOutage(unit, consumer.durable(), runtime.backOffDescription());
    }

    void settleWhenDone(DeliveryWork work, CompletionStage<Outcome> stage) {
        CompletableFuture<Outcome> future = stage == null
                ? CompletableFuture.completedFuture(Outcome.failed(new IllegalStateException("no outcome")))
                : stage.toCompletableFuture();
        if (future.isDone()) {
            settle(work, outcomeOf(future));
        }
        else {
            future.whenComplete((outcome, error) -> settle(work, outcome != null ? outcome
                    : Outcome.failed(error == null ? new IllegalStateException("no outcome") : unwrap(error))));
        }
    }

    private static Outcome outcomeOf(CompletableFuture<Outcome> done) {
        try {
            Outcome outcome = done.join();
            return outcome != null ? outcome : Outcome.failed(new IllegalStateException("no outcome"));
        }
        catch (CompletionException | java.util.concurrent.CancellationException e) {
            return Outcome.failed(unwrap(e));
        }
    }

    void settle(DeliveryWork work, Outcome outcome) {
        Delivery delivery = work.delivery;
        Decision decision = runtime.settlement()
            .decide(outcome, delivery.attempt(), delivery.maxDeliver(), state.get());
        switch (decision.action()) {
            case ACK -> ack(work, ((Applied) outcome).elementsParked());
            case NAK -> nak(work, decision);
            case RETRY -> retry(work, outcome, decision);
            case PARK -> parkOffThisThread(work, decision);
            case LEAVE -> leave(work, decision);
            case STRANDED -> stranded(work, decision);
            default -> throw new IllegalStateException("no rule for " + decision);
        }
    }

    /**
     * Parks on the settling executor: never on the client's threads, where a full publish
     * window would wait.
     */
    private void parkOffThisThread(DeliveryWork work, Decision decision) {
        try {
            runtime.executor().execute(() -> park(work, decision));
        }
        catch (RejectedExecutionException shuttingDown) {
            leave(work, Decision.leave(decision.cause(), "the node is shutting down; not parked here"));
        }
    }

    private void ack(DeliveryWork work, int elementsParked) {
        try {
            work.delivery.ack();
        }
        catch (IllegalStateException e) {
            // Settled meanwhile, or the connection is closed: ack_wait redelivers it,
            // applied idempotently.
            log.debug("{}: the ack of {} was not sent: {}", unit, work.delivery, e.toString());
        }
        finally {
            held.release(work.received);
        }
        meters.applied(System.nanoTime() - work.started, elementsParked);
        work.gotThrough(outage);
    }

    private void nak(DeliveryWork work, Decision decision) {
        log.warn("{}: {} failed ({}); nak'ed, redelivered in {} ms", unit, work.delivery, describe(decision.cause()),
                decision.delay().toMillis());
        try {
            work.delivery.nak(decision.delay());
        }
        catch (IllegalStateException e) {
            log.debug("{}: the nak of {} was not sent: {}", unit, work.delivery, e.toString());
        }
        finally {
            held.release(work.received);
        }
    }

    private void leave(DeliveryWork work, Decision decision) {
        log.debug("{}: {} left unacked for redelivery: {}", unit, work.delivery, decision.why());
        try {
            work.delivery.leave(decision.why());
        }
        catch (IllegalStateException settled) {
            log.debug("{}: {} was settled already", unit, work.delivery);
        }
        finally {
            held.release(work.received);
        }
    }

    private void stranded(DeliveryWork work, Decision decision) {
        log.error(
                "{}: {} was neither applied nor parked ({}: {}), and the server will not deliver it again: recover "
                        + "it by hand from stream {} sequence {}",
                unit, work.delivery, decision.why(), describe(decision.cause()), work.delivery.stream(),
                work.delivery.streamSequence());
        meters.stranded();
        leave(work, decision);
    }

    /**
     * Waits for the broker, keeping the delivery in progress, then runs again the step
     * that met its absence.
     */
    private void retry(DeliveryWork work, Outcome outcome, Decision decision) {
        meters.retried();
        outage.waiting(work.delivery, decision.cause());
        long wait = work.nextWait(runtime);
        CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS, runtime.executor())
            .execute(() -> resume(work, outcome));
    }

    private void resume(DeliveryWork work, Outcome waited) {
        boolean givenUp = waited instanceof ParkFailed failed && failed.reason() == ParkReason.SERVER_GAVE_UP;
        if (state.get() != Settlement.State.RUNNING && !givenUp) {
            settle(work, state.get() == Settlement.State.FENCED ? Outcome.fenced(null)
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
        }
        catch (VirtualMachineError e) {
            throw e;
        }
        catch (RuntimeException | Error e) {
            again = CompletableFuture.completedFuture(Outcome.failed(e));
        }
        settleWhenDone(work, again);
    }

    /**
     * Publishes the death envelope, in the delivery's context; acks once the DLQ stored
     * it.
     */
    private void park(DeliveryWork work, Decision decision) {
        Delivery delivery = work.delivery;
        CompletableFuture<PublishReceipt> receipt;
        try {
            receipt = delivery.inContext(() -> runtime.parker()
                .publish(delivery, unit, consumer.durable(), decision.reason(), decision.cause()));
        }
        catch (RuntimeException e) {
            receipt = CompletableFuture.failedFuture(e);
        }
        receipt.whenComplete((stored, error) -> {
            if (error != null) {
                settle(work, new ParkFailed(decision.reason(), decision.cause(), unwrap(error)));
                return;
            }
            try {
                delivery.parked(decision.reason());
            }
            catch (IllegalStateException e) {
                log.debug("{}: the ack of parked {} was not sent: {}", unit, delivery, e.toString());
            }
            finally {
                held.release(work.received);
            }
            meters.parked(decision.reason());
            work.gotThrough(outage);
            log.warn("{}: parked {} in {} at DLQ sequence {} ({}: {})", unit, delivery, stored.subject(),
                    stored.sequence(), decision.reason().tag(), describe(decision.cause()));
        });
    }

    /**
     * Reads the message the server gave up on from its stream, and parks it; the broker
     * away is waited out.
     */
    void parkGivenUp(GivenUpMessage message, BackOffExecution waits) {
        Optional<Delivery> stored;
        try {
            stored = message.load();
        }
        catch (IOException | RuntimeException e) {
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
        DeliveryWork work = new DeliveryWork(stored.get(), stored.get());
        settle(work,
                Outcome.poison(ParkReason.SERVER_GAVE_UP,
                        new IllegalStateException("the server stopped " + "delivering it after " + message.deliveries()
                                + " deliveries without an ack (durable " + message.durable() + ")")));
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

}
