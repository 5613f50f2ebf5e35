package io.varpulis.dlq;

/**
 * A replay or purge on a node where {@code varpulis.dlq.write-enabled} is not
 * {@code true} (HTTP 403).
 */
public class DeadLetterWritesDisabledException extends RuntimeException {

    /**
     * @param operation what was refused, for example {@code replay unit detect}
     */
    public DeadLetterWritesDisabledException(String operation) {
        super(operation + " refused: DLQ write operations are disabled on this node; set "
                + "varpulis.dlq.write-enabled=true (env VARPULIS_DLQ_WRITEENABLED) to allow replay and purge");
    }

}
