package io.varpulis.messaging;

import java.time.Duration;

/**
 * No reply to a request of {@link NatsTemplate#sendAndReceive} within its timeout (SPEC
 * section 19). On jetstream the request stays stored: a listener that comes back later
 * still answers it, to no one.
 */
public class NatsReplyTimeoutException extends NatsReplyException {

    private final Duration timeout;

    /**
     * @param subject the request's subject
     * @param timeout how long the requester waited
     * @param cause the timer's {@code TimeoutException}
     */
    public NatsReplyTimeoutException(String subject, Duration timeout, Throwable cause) {
        super(subject, "no reply to the request on " + subject + " within " + timeout.toMillis()
                + " ms: no listener answered it in time (down, slow, or failing on it)", cause);
        this.timeout = timeout;
    }

    /**
     * @return how long the requester waited
     */
    public Duration getTimeout() {
        return timeout;
    }

}
