package io.varpulis.transport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Hands a delivery to its handler and makes sure a handler that throws does not leave it unacknowledged until
 * ack_wait: it is nak'ed with the consumer's delay instead.
 */
final class Deliveries {

    private static final Logger log = LoggerFactory.getLogger(Deliveries.class);

    private Deliveries() {
    }

    static void dispatch(Delivery delivery, DeliveryHandler handler, Duration nakDelay) {
        try {
            handler.onDelivery(delivery);
        } catch (RuntimeException | Error e) {
            if (delivery.isLastAttempt()) {
                log.error("handler failed on {}, its last delivery: the server will not deliver it again; recover it "
                        + "by hand from stream {} sequence {}", delivery, delivery.stream(), delivery.streamSequence(),
                        e);
            } else {
                log.error("handler failed on {}; nak'ing it for redelivery in {} ms", delivery, nakDelay.toMillis(),
                        e);
            }
            if (!delivery.isSettled()) {
                try {
                    delivery.nak(nakDelay);
                } catch (IllegalStateException settledMeanwhile) {
                    log.debug("{} was settled by the handler meanwhile", delivery);
                }
            }
        }
    }
}
