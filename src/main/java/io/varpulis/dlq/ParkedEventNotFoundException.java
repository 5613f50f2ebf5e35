package io.varpulis.dlq;

/**
 * No parked event at the given {@code VARPULIS_DLQ} sequence: it was replayed or purged
 * already, evicted by max_msgs, or never existed (HTTP 404).
 */
public class ParkedEventNotFoundException extends RuntimeException {

    /**
     * @param sequence the sequence asked for
     */
    public ParkedEventNotFoundException(long sequence) {
        super("no parked event at VARPULIS_DLQ sequence " + sequence + " (replayed or purged already?); list the "
                + "DLQ for the current sequences");
    }

}
