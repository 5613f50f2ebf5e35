package io.varpulis.transport;

/**
 * Why an event was parked in the DLQ: the {@code reason} of its death envelope, of the
 * {@code varpulis.events.parked} meter and of the process observation's outcome (ADR-007,
 * SPEC sections 4, 9, 11 and 13).
 */
public enum ParkReason {

    /**
     * The payload could not be decoded (an event, a listener's parameter): parked on its
     * first delivery.
     */
    UNDECODABLE("undecodable"),

    /**
     * Retrying cannot help: the processor declared the event unprocessable, a listener
     * threw an exception declared not retryable, or a partitioned pipeline's event has no
     * key. Parked on the delivery that found it.
     */
    UNPROCESSABLE("unprocessable"),

    /**
     * The route edge it came on does not carry its event type (published straight onto
     * the edge's subject), or its key belongs to another partition with no route to it:
     * parked at once, never applied.
     */
    UNROUTABLE("unroutable"),

    /** The apply failed on the last delivery the consumer allows (max_deliver). */
    MAX_DELIVER("max_deliver"),

    /**
     * The server stopped delivering it (its max_deliver reached on the server's side: an
     * ack_wait that ran out, an owner that stopped on its last delivery) and said so in a
     * max-deliveries advisory: parked from the stream by its sequence (SPEC section 9,
     * "nothing leaves silently").
     */
    SERVER_GAVE_UP("server_gave_up");

    private final String tag;

    ParkReason(String tag) {
        this.tag = tag;
    }

    /**
     * @return the reason as written in envelopes and meter tags
     */
    public String tag() {
        return tag;
    }

}
