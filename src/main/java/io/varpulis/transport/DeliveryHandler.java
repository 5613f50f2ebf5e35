package io.varpulis.transport;

/**
 * Receives what one consumer's server sends: each delivery, in delivery order, and each
 * message the server gave up on. Implemented by the delivery container, which owns
 * settlement; a transport calls it on its client's dispatcher thread, so neither method
 * may block.
 */
public interface DeliveryHandler {

    /**
     * @param delivery the delivery, to be settled once (possibly later, on another
     * thread)
     */
    void onDelivery(Delivery delivery);

    /**
     * Told when the server stopped delivering a message of this consumer (JetStream's
     * {@code $JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES} advisory: its max_deliver
     * reached on the server's side), whatever the reason: an ack_wait that ran out, an
     * owner that stopped on its last delivery, a nak of the last delivery. Only one
     * process consuming the durable is told (the advisories are read in a queue group).
     * SPEC section 9: such a message is parked from the stream by its sequence, counted
     * and logged.
     * @param message the message given up, whose stored copy
     * {@link GivenUpMessage#load()} reads
     */
    default void onGivenUp(GivenUpMessage message) {
    }

}
