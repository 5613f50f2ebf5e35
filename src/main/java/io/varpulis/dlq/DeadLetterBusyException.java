package io.varpulis.dlq;

/**
 * A purge of a parked event that a replay on this node is publishing right now (HTTP
 * 409): the replay deletes it once its copy is stored, or leaves it parked.
 */
public class DeadLetterBusyException extends RuntimeException {

    /**
     * @param sequence the {@code VARPULIS_DLQ} sequence
     */
    public DeadLetterBusyException(long sequence) {
        super("VARPULIS_DLQ sequence " + sequence + " is being replayed on this node; ask again once the replay ends");
    }

}
