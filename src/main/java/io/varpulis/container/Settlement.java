package io.varpulis.container;

import io.varpulis.container.Outcome.Applied;
import io.varpulis.container.Outcome.BrokerAway;
import io.varpulis.container.Outcome.Failed;
import io.varpulis.container.Outcome.Fenced;
import io.varpulis.container.Outcome.ParkFailed;
import io.varpulis.container.Outcome.Poison;
import io.varpulis.container.Outcome.Skipped;
import io.varpulis.container.Outcome.StillApplying;
import io.varpulis.container.Outcome.Stopped;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishException;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.FixedBackOff;

import java.time.Duration;

/**
 * ADR-007's promise for one delivery, in one place: from what the adapter made of it (its
 * {@link Outcome}), its attempt, the consumer's max_deliver and whether the container
 * still runs, what it becomes (a {@link Decision}). Pure: no broker, no clock, no thread;
 * {@code SettlementTest} names each rule's section.
 * <ul>
 * <li>Applied: ack, strictly after the apply and its confirmed effects (SPEC section
 * 4).</li>
 * <li>A failed apply: nak with its back-off's delay for this attempt (2 s fixed by
 * default; a consumer's server-side backoff does not apply to a nak, so the schedule is
 * ours, SPEC section 18), and on the last delivery (max_deliver), or once the back-off
 * allows no more tries, park with reason {@code max_deliver}, before the ack (SPEC
 * section 4).</li>
 * <li>A redelivery of a message whose earlier apply still runs here (past its apply
 * timeout): nak after the back-off's delay, so another instance may take it, never
 * applied twice at once in one process; on its last delivery, left: the server gives it
 * up and its advisory parks it, while the first apply may still finish (SPEC section
 * 18).</li>
 * <li>Skipped by an error handler: ack without applying, counted and logged (SPEC section
 * 18); never without a handler's explicit choice, never by a fenced owner.</li>
 * <li>Poison (undecodable, unprocessable, unroutable, not retryable, the server gave up):
 * park on this delivery (SPEC sections 4, 11, 13).</li>
 * <li>The broker briefly away (no responders, no PubAck, a leader election): wait and try
 * again, the delivery kept in progress, no delivery of max_deliver spent (SPEC section
 * 9).</li>
 * <li>Fenced (another writer owns the pipeline): leave it, without any effect, for the
 * rightful owner (SPEC section 9). A fenced container leaves everything.</li>
 * <li>Stopped (undeployed, moved): leave it for wherever the consumer runs next; on its
 * last delivery the server would never deliver it again, so park it
 * ({@code max_deliver}).</li>
 * <li>A park the DLQ did not store: the broker away is waited out like any other wait; a
 * refusal naks (SPEC section 4: a failed park naks instead), and on the last delivery the
 * server then gives it up and its max-deliveries advisory parks it from the stream (SPEC
 * section 9). A message the server already gave up whose park the DLQ refuses is
 * stranded: logged at ERROR and counted ({@code varpulis.events.stranded}).</li>
 * </ul>
 * A message the server gave up ({@link ParkReason#SERVER_GAVE_UP}) is parked whatever the
 * container's state: nothing else will ever see it again.
 */
public final class Settlement {

    /** Whether the container still applies what it receives. */
    public enum State {

        /** Consuming. */
        RUNNING,
        /**
         * Stopped: undeployed, moved, or at the end of a drain; what it holds goes to the
         * consumer's next owner.
         */
        STOPPED,
        /**
         * Superseded: another writer owns what it applies; it has no further effect (SPEC
         * section 9).
         */
        FENCED

    }

    /**
     * How many attempts a back-off is stepped through at most to find one nak's delay: a
     * consumer without max_deliver can redeliver for ever.
     */
    private static final long MAX_STEPS = 64;

    private final BackOff nakBackOff;

    /**
     * @param nakBackOff the redelivery delays of a failed apply, one step per attempt
     * ({@code varpulis.nats.jetstream.consumer.backoff.*}, or a listener's; 2 s fixed by
     * default); a back-off that stops parks the event ({@code max_deliver})
     */
    public Settlement(BackOff nakBackOff) {
        this.nakBackOff = nakBackOff;
    }

    /**
     * @param nakDelay one redelivery delay for every failed attempt
     */
    public Settlement(Duration nakDelay) {
        this(new FixedBackOff(nakDelay.toMillis(), FixedBackOff.UNLIMITED_ATTEMPTS));
    }

    /**
     * @param outcome what the adapter made of the delivery
     * @param attempt the delivery's attempt, from 1
     * @param maxDeliver the consumer's max_deliver as the server has it (below 1:
     * unlimited)
     * @param state whether the container still runs
     * @return what the delivery becomes
     */
    public Decision decide(Outcome outcome, long attempt, long maxDeliver, State state) {
        boolean last = maxDeliver >= 1 && attempt >= maxDeliver;
        if (outcome instanceof Poison poison && poison.reason() == ParkReason.SERVER_GAVE_UP) {
            return Decision.park(poison.reason(), poison.cause(), "the server gave it up");
        }
        if (outcome instanceof ParkFailed failed && failed.reason() == ParkReason.SERVER_GAVE_UP) {
            return away(failed.parkError()) ? Decision.retry(failed.parkError(), "the DLQ is unavailable")
                    : Decision.stranded(failed.parkError(), "the server gave it up and the DLQ refused it");
        }
        if (outcome instanceof Applied) {
            return Decision.ack();
        }
        if (state == State.FENCED || outcome instanceof Fenced) {
            Throwable cause = outcome instanceof Fenced fenced ? fenced.cause() : null;
            return Decision.leave(cause, "another writer owns it; no effect from here");
        }
        if (outcome instanceof StillApplying) {
            Duration delay = last ? null : nakDelay(attempt);
            return delay == null ? Decision.leave(null, "an earlier delivery of it still runs here")
                    : Decision.nak(delay, new IllegalStateException(
                            "an earlier delivery of it is still applied here, past its apply timeout"));
        }
        if (outcome instanceof Skipped skipped) {
            return Decision.skip(skipped.cause(), skipped.why());
        }
        if (state == State.STOPPED || outcome instanceof Stopped) {
            String why = outcome instanceof Stopped stopped ? stopped.why() : "stopped on this worker";
            if (outcome instanceof ParkFailed failed) {
                return Decision.leave(failed.parkError(), why + "; its park was not stored");
            }
            return last
                    ? Decision.park(outcome instanceof Poison poison ? poison.reason() : ParkReason.MAX_DELIVER,
                            cause(outcome), "its last delivery could not be finished here: " + why)
                    : Decision.leave(cause(outcome), why);
        }
        if (outcome instanceof Poison poison) {
            return Decision.park(poison.reason(), poison.cause(), "poison");
        }
        if (outcome instanceof BrokerAway away) {
            return Decision.retry(away.cause(), "the broker is unavailable");
        }
        if (outcome instanceof ParkFailed failed) {
            return away(failed.parkError()) ? Decision.retry(failed.parkError(), "the DLQ is unavailable")
                    : Decision.nak(refusedParkDelay(attempt), failed.parkError());
        }
        Failed failed = (Failed) outcome;
        if (last) {
            return Decision.park(ParkReason.MAX_DELIVER, failed.cause(), "failed on its last delivery");
        }
        Duration delay = nakDelay(attempt);
        return delay == null
                ? Decision.park(ParkReason.MAX_DELIVER, failed.cause(), "failed, and its back-off allows no more tries")
                : Decision.nak(delay, failed.cause());
    }

    /**
     * @param attempt the failed delivery's attempt, from 1
     * @return the delay of its nak: the back-off's step for that attempt (the first
     * attempt gets the first step), or {@code null} when the back-off stopped before it
     */
    Duration nakDelay(long attempt) {
        BackOffExecution steps = nakBackOff.start();
        long delay = 0;
        for (long step = 0; step < Math.min(Math.max(attempt, 1), MAX_STEPS); step++) {
            delay = steps.nextBackOff();
            if (delay == BackOffExecution.STOP) {
                return null;
            }
        }
        return Duration.ofMillis(delay);
    }

    /**
     * A refused park is nak'ed even when the back-off stopped (it cannot be parked now):
     * after the back-off's step for this attempt, else its first.
     */
    private Duration refusedParkDelay(long attempt) {
        Duration delay = nakDelay(attempt);
        if (delay == null) {
            delay = nakDelay(1);
        }
        return delay == null ? Duration.ZERO : delay;
    }

    /**
     * A park's publish that failed because the broker was away; anything else (a refusal,
     * a bug) is not waited.
     */
    private static boolean away(Throwable error) {
        return PublishException.find(error).map(PublishException::isUnavailable).orElse(false);
    }

    private static Throwable cause(Outcome outcome) {
        if (outcome instanceof Failed failed) {
            return failed.cause();
        }
        if (outcome instanceof Poison poison) {
            return poison.cause();
        }
        if (outcome instanceof BrokerAway away) {
            return away.cause();
        }
        return null;
    }

}
