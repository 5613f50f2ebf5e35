package io.varpulis.container;

import io.varpulis.transport.ParkReason;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * What a {@link DeliveryAdapter} made of one delivery. The adapter never acks, naks or
 * parks: the container reads the outcome, and {@link Settlement} decides what the
 * delivery becomes (SPEC section 18).
 */
public sealed interface Outcome {

    /**
     * @return the outcome of a delivery applied, with its effects confirmed
     */
    static Outcome applied() {
        return Applied.NOTHING_PARKED;
    }

    /**
     * @param elementsParked how many elements of the input (a batch) were parked on their
     * own, their envelopes stored
     * @return the outcome of a delivery applied, with its effects confirmed
     */
    static Outcome applied(int elementsParked) {
        return elementsParked == 0 ? Applied.NOTHING_PARKED : new Applied(elementsParked);
    }

    /**
     * @param cause why the apply failed (the listener method or processor threw)
     * @return a failure another delivery may fix (nak, or park on the last one)
     */
    static Outcome failed(Throwable cause) {
        return new Failed(ErrorStage.LISTENER, cause);
    }

    /**
     * @param stage where the handling threw
     * @param cause what it threw
     * @return a failure another delivery may fix (nak after the back-off's delay, or park
     * on the last one)
     */
    static Outcome failed(ErrorStage stage, Throwable cause) {
        return new Failed(stage, cause);
    }

    /**
     * @return a redelivery of a message whose earlier apply still runs here, past its
     * apply timeout: never applied twice at once in one process
     */
    static Outcome stillApplying() {
        return StillApplying.INSTANCE;
    }

    /**
     * @param why why it is skipped, for the log (an error handler's explicit choice)
     * @param cause the failure skipped
     * @return a delivery acked without being applied, counted
     * ({@code varpulis.events.skipped}) and logged
     */
    static Outcome skipped(String why, Throwable cause) {
        return new Skipped(why, cause);
    }

    /**
     * @param reason why no delivery can ever succeed
     * @param cause what showed it
     * @return an event to park now, whatever its attempt
     */
    static Outcome poison(ParkReason reason, Throwable cause) {
        return new Poison(reason, cause);
    }

    /**
     * @param cause how the broker is away (no responders, no PubAck, no leader, a refused
     * reconnect)
     * @param resume what to run again once the broker may be back: the step that met its
     * absence, not the whole apply (outputs are published again with the same message
     * ids)
     * @return a wait that spends no delivery
     */
    static Outcome brokerAway(Throwable cause, Supplier<CompletionStage<Outcome>> resume) {
        return new BrokerAway(cause, resume);
    }

    /**
     * @param cause who owns the pipeline now
     * @return the outcome of an owner that lost its ownership: it stops without any
     * effect
     */
    static Outcome fenced(Throwable cause) {
        return new Fenced(cause);
    }

    /**
     * @param why why the adapter no longer applies (its pipeline undeployed, moved or
     * drained)
     * @return the outcome of a delivery the adapter could not finish
     */
    static Outcome stopped(String why) {
        return new Stopped(why);
    }

    /**
     * Applied: ack (ADR-007: strictly after the apply and the confirmation of its outputs
     * and state).
     *
     * @param elementsParked elements of a batch input parked on their own
     */
    record Applied(int elementsParked) implements Outcome {
        private static final Applied NOTHING_PARKED = new Applied(0);

    }

    /**
     * A failed apply, retried by a nak and parked on the last delivery.
     *
     * @param stage where it threw
     * @param cause the failure
     */
    record Failed(ErrorStage stage, Throwable cause) implements Outcome {
    }

    /**
     * A redelivery of a message whose earlier apply still runs in this process: left to
     * another instance, without asking the error handler.
     */
    record StillApplying() implements Outcome {

        private static final StillApplying INSTANCE = new StillApplying();

    }

    /**
     * Acked without being applied, because an error handler said so: counted and logged,
     * never a default.
     *
     * @param why the handler's reason
     * @param cause the failure skipped
     */
    record Skipped(String why, Throwable cause) implements Outcome {
    }

    /**
     * Poison: parked on the delivery that found it.
     *
     * @param reason the park's reason
     * @param cause what showed it
     */
    record Poison(ParkReason reason, Throwable cause) implements Outcome {
    }

    /**
     * The broker is briefly away: waited out, tried again, no delivery spent (SPEC
     * section 9).
     *
     * @param cause how it is away
     * @param resume the step to run again
     */
    record BrokerAway(Throwable cause, Supplier<CompletionStage<Outcome>> resume) implements Outcome {
    }

    /**
     * Another writer owns the pipeline now: stop before any effect (SPEC section 9).
     *
     * @param cause who owns it
     */
    record Fenced(Throwable cause) implements Outcome {
    }

    /**
     * The adapter stopped applying (undeployed, moved, drained).
     *
     * @param why why
     */
    record Stopped(String why) implements Outcome {
    }

    /**
     * The DLQ did not store a park's envelope.
     *
     * @param reason why the event was to be parked
     * @param cause the failure that made it poison, or {@code null}
     * @param parkError why the park failed
     */
    record ParkFailed(ParkReason reason, Throwable cause, Throwable parkError) implements Outcome {
    }

}
