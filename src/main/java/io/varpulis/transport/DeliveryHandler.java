package io.varpulis.transport;

/**
 * Receives the deliveries of one consumer, one at a time, in delivery order. The handler owns the delivery's
 * acknowledgement (ack, nak or park), which may complete later on another thread.
 */
@FunctionalInterface
public interface DeliveryHandler {

    /**
     * @param delivery the delivery; an exception thrown here naks it with the consumer's nak delay
     */
    void onDelivery(Delivery delivery);
}
