package io.varpulis.container;

import io.varpulis.transport.ParkReason;

import java.time.Duration;

/**
 * What a delivery becomes, as {@link Settlement} decided it from its outcome.
 *
 * @param action what to do
 * @param delay the nak's redelivery delay ({@link Action#NAK}), else
 * {@link Duration#ZERO}
 * @param reason the park's reason ({@link Action#PARK}), else {@code null}
 * @param cause the failure behind it, or {@code null}
 * @param why one line for the log
 */
public record Decision(Action action, Duration delay, ParkReason reason, Throwable cause, String why) {

    /** What a delivery becomes. */
    public enum Action {

        /** Acknowledged: applied, never delivered again. */
        ACK,
        /**
         * Negatively acknowledged: redelivered after the delay, one delivery of
         * max_deliver spent.
         */
        NAK,
        /**
         * Kept in progress and tried again after a back-off: no delivery spent (the
         * broker is away).
         */
        RETRY,
        /** Its death envelope published on the DLQ, then acked once the DLQ stored it. */
        PARK,
        /**
         * Acked without being applied, as an error handler chose: counted
         * ({@code varpulis.events.skipped}) and logged at WARN.
         */
        SKIP,
        /**
         * Left unsettled, without any effect: the server redelivers it to wherever its
         * consumer runs next.
         */
        LEAVE,
        /**
         * Neither applied nor parked, and the server will not deliver it again: logged at
         * ERROR and counted.
         */
        STRANDED

    }

    /** The decision of every applied delivery: one instance, not one per delivery. */
    private static final Decision ACK = new Decision(Action.ACK, Duration.ZERO, null, null, "applied");

    static Decision ack() {
        return ACK;
    }

    static Decision nak(Duration delay, Throwable cause) {
        return new Decision(Action.NAK, delay, null, cause, "failed");
    }

    static Decision retry(Throwable cause, String why) {
        return new Decision(Action.RETRY, Duration.ZERO, null, cause, why);
    }

    static Decision park(ParkReason reason, Throwable cause, String why) {
        return new Decision(Action.PARK, Duration.ZERO, reason, cause, why);
    }

    static Decision skip(Throwable cause, String why) {
        return new Decision(Action.SKIP, Duration.ZERO, null, cause, why);
    }

    static Decision leave(Throwable cause, String why) {
        return new Decision(Action.LEAVE, Duration.ZERO, null, cause, why);
    }

    static Decision stranded(Throwable cause, String why) {
        return new Decision(Action.STRANDED, Duration.ZERO, null, cause, why);
    }
}
