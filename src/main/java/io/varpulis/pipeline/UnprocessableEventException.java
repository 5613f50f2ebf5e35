package io.varpulis.pipeline;

/**
 * Thrown by a processor for an event that no retry can fix (a malformed log line, a field
 * of the wrong kind): the route ingress parks it on this delivery instead of retrying it
 * max_deliver times.
 */
public class UnprocessableEventException extends IllegalArgumentException {

    /**
     * @param message what is wrong with the event
     */
    public UnprocessableEventException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong with the event
     * @param cause the underlying error
     */
    public UnprocessableEventException(String message, Throwable cause) {
        super(message, cause);
    }

}
