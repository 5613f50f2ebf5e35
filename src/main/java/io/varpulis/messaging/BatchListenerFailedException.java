package io.varpulis.messaging;

/**
 * Thrown by a batch {@link NatsListener} to name the element that failed, as Spring
 * Kafka's exception of the same name: the elements before it are acked; it is settled by
 * the rule (nak'ed after the back-off, parked on its last delivery, or parked at once
 * when its cause is not retryable); the elements after it are passed to the method again
 * at once, in a new call, without spending a delivery.
 */
public class BatchListenerFailedException extends RuntimeException {

    private final int index;

    private final transient Object element;

    /**
     * @param message what failed
     * @param cause why the element failed (what the error handler and the death envelope
     * see)
     * @param index the element's position in the list the method received, from 0
     */
    public BatchListenerFailedException(String message, Throwable cause, int index) {
        super(message, cause);
        this.index = index;
        this.element = null;
    }

    /**
     * @param message what failed
     * @param cause why the element failed
     * @param element the element that failed, as the method received it (found in the
     * list by identity)
     */
    public BatchListenerFailedException(String message, Throwable cause, Object element) {
        super(message, cause);
        this.index = -1;
        this.element = element;
    }

    /**
     * @param elements the list the method received
     * @return the failed element's position, or -1 when it is not in the list
     */
    public int indexIn(java.util.List<?> elements) {
        if (element == null) {
            return index < elements.size() ? index : -1;
        }
        for (int i = 0; i < elements.size(); i++) {
            if (elements.get(i) == element) {
                return i;
            }
        }
        return -1;
    }

}
