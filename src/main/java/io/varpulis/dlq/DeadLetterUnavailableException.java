package io.varpulis.dlq;

/**
 * The JetStream API did not answer a DLQ request, or refused it: NATS is unreachable, the
 * account lacks the permission, or {@code VARPULIS_DLQ} does not exist (HTTP 503).
 */
public class DeadLetterUnavailableException extends RuntimeException {

    /**
     * @param what the request, for example {@code read VARPULIS_DLQ sequence 42}
     * @param cause the client's error
     */
    public DeadLetterUnavailableException(String what, Throwable cause) {
        super("cannot " + what + ": " + cause.getMessage(), cause);
    }

}
