package io.varpulis.container;

import io.varpulis.transport.Delivery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Consumer;

/**
 * Settles one delivery of a {@link DeliveryContainer} as decorated (its observation ends
 * with it), then releases it from the held set. A settlement refused because it was
 * settled already (or the connection closed: ack_wait brings it back) is not an error. A
 * decorator that throws while it settles (an observation handler's stop) is counted, and
 * the delivery itself is settled the same way if it was not yet.
 */
final class DeliveryRelease {

    private static final Logger log = LoggerFactory.getLogger(DeliveryRelease.class);

    private final ContainerParts parts;

    /**
     * @param parts the container's parts
     */
    DeliveryRelease(ContainerParts parts) {
        this.parts = parts;
    }

    /**
     * @param work the delivery
     * @param settle the settlement (ack, nak, park, leave)
     * @return whether this call settled it
     * @throws VirtualMachineError a fatal error, rethrown
     */
    boolean release(DeliveryWork work, Consumer<Delivery> settle) {
        boolean settledBefore = work.received.isSettled();
        boolean decorated = work.delivery != work.received;
        try {
            settle.accept(work.delivery);
            return true;
        }
        catch (Throwable e) {
            if (Settler.isFatal(e)) {
                throw e;
            }
            if (work.received.isSettled()) {
                boolean byThisCall = !settledBefore && decorated && !(e instanceof IllegalStateException);
                if (byThisCall) {
                    parts.errors().report(ErrorStage.OBSERVATION, work.received, e);
                }
                else {
                    log.debug("{}: {} was not settled here: {}", parts.unit(), work.delivery, e.toString());
                }
                return byThisCall;
            }
            if (!decorated) {
                log.debug("{}: {} was not settled here: {}", parts.unit(), work.delivery, e.toString());
                return false;
            }
            parts.errors().report(ErrorStage.OBSERVATION, work.received, e);
            try {
                settle.accept(work.received);
                return true;
            }
            catch (IllegalStateException notSent) {
                log.debug("{}: {} was not settled here: {}", parts.unit(), work.received, notSent.toString());
                return false;
            }
        }
        finally {
            parts.held().release(work.received);
        }
    }

}
