package io.varpulis.container;

import io.varpulis.container.Outcome.Applied;
import io.varpulis.container.Outcome.BrokerAway;
import io.varpulis.container.Outcome.Failed;
import io.varpulis.container.Outcome.ParkFailed;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.metrics.DeliveryMeters;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishReceipt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Does what {@link Settlement} decided for each delivery of one
 * {@link DeliveryContainer}: ack, nak, wait for the broker and resume the adapter's step,
 * publish the death envelope and ack once the DLQ stored it, skip, leave it, or count it
 * stranded; and parks the messages the server gave up on, read from the stream by their
 * sequence ({@link GivenUpParks}). Counts each decision in the container's meters, and
 * releases the delivery from the container's held set once settled.
 * <p>
 * It never throws: whatever settling a delivery throws is counted
 * ({@code varpulis.consumer.errors{stage=settler}}), and the delivery is left for
 * redelivery; an observation that throws while the delivery is settled is counted
 * ({@code stage=observation}) and the delivery is settled without it. A park's wait for
 * an absent DLQ ends with its container.
 */
final class Settler {

    private static final Logger log = LoggerFactory.getLogger(Settler.class);

    private final ConsumerDeclaration consumer;

    private final String unit;

    private final DeliveryMeters meters;

    private final ContainerRuntime runtime;

    private final ContainerState state;

    private final HeldDeliveries held;

    private final ContainerErrors errors;

    private final Settlement settlement;

    private final DeliveryErrorHandler errorHandler;

    private final Consumer<Throwable> fatal;

    private final BrokerOutage outage;

    private final DeliveryRelease releases;

    private final java.time.Duration applyTimeout;

    /**
     * @param parts the container's parts
     * @param settlement the container's rule, with its back-off
     * @param errorHandler decides what a failed delivery becomes, or {@code null}
     * @param fatal told of a {@link VirtualMachineError}: the container stops
     */
    Settler(ContainerParts parts, Settlement settlement, DeliveryErrorHandler errorHandler, Consumer<Throwable> fatal) {
        this.consumer = parts.consumer();
        this.unit = parts.unit();
        this.meters = parts.meters();
        this.runtime = parts.runtime();
        this.state = parts.state();
        this.held = parts.held();
        this.errors = parts.errors();
        this.settlement = settlement;
        this.errorHandler = errorHandler;
        this.fatal = fatal;
        this.outage = new BrokerOutage(unit, consumer.durable(), runtime.backOffDescription());
        this.applyTimeout = parts.settings().applyTimeout();
        this.releases = new DeliveryRelease(parts);
    }

    /**
     * Settles the delivery once its outcome is known: at once when it is, else on the
     * thread that completes it.
     */
    void settleWhenDone(DeliveryWork work, CompletionStage<Outcome> stage) {
        Outcomes.whenDone(stage, outcome -> settle(work, outcome));
    }

    /**
     * Settles the deliveries of one batch whose applies succeeded at once
     * ({@link Outcome#applied()}, nothing parked) in one pass (issue 42): the rule's
     * decision for an applied delivery is taken once (an ack, whatever the container's
     * state), then each is acked and released in order and the applies are counted
     * together (one record of the apply timer for the batch). A delivery its apply
     * timeout released first is only logged, as {@link #settle} does; should the rule not
     * ack an applied delivery, each is settled on its own. Never throws.
     * @param works the deliveries, in order
     */
    void settleApplied(List<DeliveryWork> works) {
        if (works.isEmpty()) {
            return;
        }
        DeliveryWork first = works.get(0);
        Decision decision = settlement.decide(Outcome.applied(), first.delivery.attempt(), first.delivery.maxDeliver(),
                state.get());
        if (decision.action() != Decision.Action.ACK) {
            works.forEach(work -> settle(work, Outcome.applied()));
            return;
        }
        int acked = 0;
        for (DeliveryWork work : works) {
            if (held.outcomeKnown(work)) {
                finishedLate(work, Outcome.applied());
                continue;
            }
            try {
                if (releases.release(work, Delivery::ack)) {
                    acked++;
                }
                work.gotThrough(outage);
            }
            catch (Throwable e) {
                settleFailed(work, e);
            }
        }
        meters.appliedBatch(acked, System.nanoTime() - first.started);
    }

    /**
     * Settles by the rule once a step the delivery waited for (its resumed effects) is
     * done, the apply's own outcome being known already.
     */
    private void proceedWhenDone(DeliveryWork work, CompletionStage<Outcome> stage) {
        CompletionStage<Outcome> bounded = stage;
        if (stage != null && !stage.toCompletableFuture().isDone()) {
            // A resumed step is bounded by the apply timeout too: nothing is kept in
            // progress for ever.
            bounded = stage.toCompletableFuture().copy().orTimeout(applyTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        Outcomes.whenDone(bounded, outcome -> proceed(work, outcome));
    }

    /**
     * Settles the delivery as the rule decides for its apply's outcome, unless its apply
     * timeout settled it first. Never throws.
     */
    void settle(DeliveryWork work, Outcome outcome) {
        if (held.outcomeKnown(work)) {
            finishedLate(work, outcome);
            return;
        }
        proceed(work, outcome);
    }

    /**
     * Settles the delivery as the rule decides for an apply that ran past its timeout and
     * still runs: the apply stays watched until it returns, and its outcome then settles
     * nothing. Never throws.
     * @param work the delivery, its settlement claimed by its timeout
     * @param timedOut the failure it is released with
     */
    void settleTimedOut(DeliveryWork work, Outcome timedOut) {
        proceed(work, timedOut);
    }

    /**
     * Settles the delivery as the rule decides for this outcome. Never throws.
     */
    private void proceed(DeliveryWork work, Outcome failedOrNot) {
        try {
            Outcome outcome = failedOrNot;
            if (outcome instanceof Failed failed) {
                errors.count(failed.stage(), failed.cause());
                outcome = handle(work, failed);
            }
            Delivery delivery = work.delivery;
            Decision decision = settlement.decide(outcome, delivery.attempt(), delivery.maxDeliver(), state.get());
            switch (decision.action()) {
                case ACK -> ack(work, ((Applied) outcome).elementsParked());
                case NAK -> nak(work, decision);
                case RETRY -> retry(work, outcome, decision);
                case PARK -> parkOffThisThread(work, decision);
                case SKIP -> skip(work, decision);
                case LEAVE -> leave(work, decision);
                case STRANDED -> stranded(work, decision);
                default -> throw new IllegalStateException("no rule for " + decision);
            }
        }
        catch (Throwable e) {
            settleFailed(work, e);
        }
    }

    /**
     * Settling the delivery threw: a fatal error stops the container; anything else is
     * counted and the delivery left for redelivery.
     */
    private void settleFailed(DeliveryWork work, Throwable e) {
        if (isFatal(e)) {
            fatal.accept(e);
            return;
        }
        errors.report(ErrorStage.SETTLER, work.received, e);
        releases.release(work, d -> d.leave("settling it failed: " + e));
    }

    /**
     * The error handler's choice for a failure of a running container; the failure itself
     * when there is none, or when it throws (counted and logged).
     */
    private Outcome handle(DeliveryWork work, Failed failed) {
        if (errorHandler == null || state.get() != Settlement.State.RUNNING) {
            return failed;
        }
        try {
            Outcome chosen = errorHandler.handle(failed, work.delivery);
            return chosen != null ? chosen : failed;
        }
        catch (Throwable e) {
            if (isFatal(e)) {
                throw e;
            }
            errors.report(ErrorStage.ERROR_HANDLER, work.received, e);
            return failed;
        }
    }

    /** An apply that returned after its timeout released it for redelivery. */
    private void finishedLate(DeliveryWork work, Outcome outcome) {
        log.warn(
                "{}: {} finished as {} after its apply timeout had released it ({}): its redelivery may be applied "
                        + "again",
                unit, work.received, outcome.getClass().getSimpleName().toLowerCase(), work.received.settlement());
    }

    /**
     * Parks on the settling executor: never on the client's threads, where a full publish
     * window would wait (the executor runs it here once it is shut down).
     */
    private void parkOffThisThread(DeliveryWork work, Decision decision) {
        runtime.executor().execute(() -> park(work, decision));
    }

    private void ack(DeliveryWork work, int elementsParked) {
        if (releases.release(work, Delivery::ack)) {
            meters.applied(System.nanoTime() - work.started, elementsParked);
        }
        work.gotThrough(outage);
    }

    private void nak(DeliveryWork work, Decision decision) {
        log.warn("{}: {} failed ({}); nak'ed, redelivered in {} ms", unit, work.delivery,
                Outcomes.describe(decision.cause()), decision.delay().toMillis());
        releases.release(work, d -> d.nak(decision.delay()));
    }

    private void skip(DeliveryWork work, Decision decision) {
        log.warn("{}: {} skipped by its error handler ({}): acked without being applied; it failed with {}", unit,
                work.delivery, decision.why(), Outcomes.describe(decision.cause()));
        if (releases.release(work, Delivery::ack)) {
            meters.skipped();
        }
    }

    private void leave(DeliveryWork work, Decision decision) {
        log.debug("{}: {} left unacked for redelivery: {}", unit, work.delivery, decision.why());
        releases.release(work, d -> d.leave(decision.why()));
    }

    private void stranded(DeliveryWork work, Decision decision) {
        log.error(
                "{}: {} was neither applied nor parked ({}: {}), and the server will not deliver it again: recover "
                        + "it by hand from stream {} sequence {}",
                unit, work.delivery, decision.why(), Outcomes.describe(decision.cause()), work.delivery.stream(),
                work.delivery.streamSequence());
        meters.stranded();
        leave(work, decision);
    }

    /**
     * Waits for the broker, keeping the delivery in progress, then runs again the step
     * that met its absence.
     */
    private void retry(DeliveryWork work, Outcome outcome, Decision decision) {
        if (work.waitingNanos() > applyTimeout.toNanos()) {
            gaveUpWaiting(work, outcome, decision);
            return;
        }
        meters.retried();
        outage.waiting(work.delivery, decision.cause());
        long wait = work.nextWait(runtime);
        CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS, runtime.executor())
            .execute(() -> resume(work, outcome));
    }

    /**
     * A delivery that waited for the broker longer than the apply timeout: told at ERROR,
     * and settled by the rule as a failure (nak, park on its last delivery; a park that
     * still cannot be written is stranded), so no wait lasts for ever.
     */
    private void gaveUpWaiting(DeliveryWork work, Outcome waited, Decision decision) {
        IllegalStateException tooLong = new IllegalStateException(
                "the broker was away for more than the apply timeout (" + applyTimeout.toSeconds() + " s): "
                        + Outcomes.describe(decision.cause()));
        log.error("{}: {} waited for the broker for more than its apply timeout of {} s ({}); settled as a failure",
                unit, work.delivery, applyTimeout.toSeconds(), Outcomes.describe(decision.cause()));
        proceed(work, waited instanceof ParkFailed failed ? new ParkFailed(failed.reason(), failed.cause(), tooLong)
                : Outcome.failed(ErrorStage.LISTENER, tooLong));
    }

    private void resume(DeliveryWork work, Outcome waited) {
        boolean givenUpPark = waited instanceof ParkFailed failed && failed.reason() == ParkReason.SERVER_GAVE_UP;
        if (state.get() != Settlement.State.RUNNING && !givenUpPark) {
            proceed(work, state.get() == Settlement.State.FENCED ? Outcome.fenced(null)
                    : Outcome.stopped("its consumer stopped while waiting for the broker"));
            return;
        }
        if (givenUpPark && state.closed()) {
            proceed(work, new ParkFailed(ParkReason.SERVER_GAVE_UP, null,
                    new IllegalStateException("its container closed while the DLQ was unavailable")));
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
        catch (Throwable e) {
            if (isFatal(e)) {
                fatal.accept(e);
                return;
            }
            again = CompletableFuture.completedFuture(Outcome.failed(e));
        }
        proceedWhenDone(work, again);
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
        catch (Throwable e) {
            if (isFatal(e)) {
                fatal.accept(e);
                return;
            }
            receipt = CompletableFuture.failedFuture(e);
        }
        receipt.whenComplete((stored, error) -> {
            if (error != null) {
                proceed(work, new ParkFailed(decision.reason(), decision.cause(), Outcomes.unwrap(error)));
                return;
            }
            try {
                if (releases.release(work, d -> d.parked(decision.reason()))) {
                    meters.parked(decision.reason());
                }
                work.gotThrough(outage);
                log.warn("{}: parked {} in {} at DLQ sequence {} ({}: {})", unit, delivery, stored.subject(),
                        stored.sequence(), decision.reason().tag(), Outcomes.describe(decision.cause()));
            }
            catch (Throwable e) {
                if (isFatal(e)) {
                    fatal.accept(e);
                    return;
                }
                errors.report(ErrorStage.SETTLER, work.received, e);
            }
        });
    }

    static boolean isFatal(Throwable error) {
        return error instanceof VirtualMachineError && !(error instanceof StackOverflowError);
    }

}
