package io.varpulis.messaging;

import io.varpulis.transport.ParkReason;

/**
 * What a {@link NatsListenerErrorHandler} makes of a failed delivery.
 *
 * @param kind retry, park or skip
 * @param reason the park's reason ({@link Kind#PARK}), else {@code null}
 * @param why the skip's reason, for the log ({@link Kind#SKIP}), else {@code null}
 */
public record ErrorAction(Kind kind, ParkReason reason, String why) {

    /** What a failed delivery becomes. */
    public enum Kind {

        /**
         * Nak'ed after the listener's back-off delay for this attempt; parked
         * ({@code max_deliver}) on the last delivery: the default.
         */
        RETRY,
        /** Parked now with its death envelope, whatever its attempt. */
        PARK,
        /**
         * Acked without being applied: counted ({@code varpulis.events.skipped}) and
         * logged at WARN. Never a default: the event is gone.
         */
        SKIP

    }

    private static final ErrorAction RETRY = new ErrorAction(Kind.RETRY, null, null);

    /**
     * @return retry after the back-off (the default rule)
     */
    public static ErrorAction retry() {
        return RETRY;
    }

    /**
     * @return park now, with reason {@code unprocessable}
     */
    public static ErrorAction park() {
        return park(ParkReason.UNPROCESSABLE);
    }

    /**
     * @param reason the death envelope's reason ({@code server_gave_up} is the server's
     * alone)
     * @return park now
     * @throws IllegalArgumentException for {@link ParkReason#SERVER_GAVE_UP}
     */
    public static ErrorAction park(ParkReason reason) {
        if (reason == ParkReason.SERVER_GAVE_UP) {
            throw new IllegalArgumentException("server_gave_up is for messages the server stopped delivering; park "
                    + "with unprocessable, undecodable or max_deliver");
        }
        return new ErrorAction(Kind.PARK, reason, null);
    }

    /**
     * @param why why the event may be dropped, for the log
     * @return ack without applying, counted and logged
     */
    public static ErrorAction skip(String why) {
        return new ErrorAction(Kind.SKIP, null, why);
    }

}
