package io.varpulis.container;

import java.time.Duration;

/**
 * An apply (a listener method, a processor, or the effects it waits for) that did not
 * finish within its container's apply timeout: the failure its delivery is released with,
 * so the server redelivers it (SPEC section 18: every wait is bounded).
 */
public class ApplyTimeoutException extends RuntimeException {

    /**
     * @param unit the listener or pipeline
     * @param streamSequence the delivery's stream sequence (0 on core)
     * @param timeout the apply timeout it ran past
     */
    public ApplyTimeoutException(String unit, long streamSequence, Duration timeout) {
        super(unit + ": the apply of stream sequence " + streamSequence + " did not finish within "
                + timeout.toSeconds() + " s");
    }

}
