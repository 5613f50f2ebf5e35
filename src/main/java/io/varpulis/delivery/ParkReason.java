package io.varpulis.delivery;

/**
 * Why an event was parked in the DLQ (the {@code reason} of the death envelope and of the
 * {@code varpulis.events.parked} meter).
 */
public enum ParkReason {

    /** The payload could not be decoded as an event: parked on its first delivery, retrying cannot help. */
    UNDECODABLE("undecodable"),

    /** The processor declared the event unprocessable: no retry can fix it, so it is parked at once. */
    UNPROCESSABLE("unprocessable"),

    /**
     * The route edge it came on does not carry its event type (published straight onto the edge's subject): parked
     * at once, never applied.
     */
    UNROUTABLE("unroutable"),

    /** The apply failed on the last delivery the consumer allows (max_deliver). */
    MAX_DELIVER("max_deliver");

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
