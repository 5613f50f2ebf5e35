package io.varpulis.pipeline;

/**
 * A payload that is not an event. The route ingress parks it on its first delivery
 * (ADR-007): no retry can fix it.
 */
public class UndecodableEventException extends RuntimeException {

    /**
     * @param message what is wrong with the payload
     * @param cause the parser's error, or {@code null}
     */
    public UndecodableEventException(String message, Throwable cause) {
        super(message, cause);
    }

}
