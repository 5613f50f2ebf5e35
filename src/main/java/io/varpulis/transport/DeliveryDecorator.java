package io.varpulis.transport;

import io.varpulis.jetstream.ConsumerDeclaration;

/**
 * Wraps each delivery a container is about to process, so that something sees it
 * processed and settled without settling it: Micrometer's process observation (SPEC
 * section 14), whose scope the container opens around the adapter through
 * {@link Delivery#inContext}, and which ends when the delivery is acked, nak'ed, parked
 * or left.
 */
@FunctionalInterface
public interface DeliveryDecorator {

    /** Decorates nothing. */
    DeliveryDecorator NONE = (consumer, delivery) -> delivery;

    /**
     * @param consumer the durable consumer the delivery came through
     * @param delivery the delivery, not settled
     * @return the delivery to process (the same one, or a {@link ForwardingDelivery} of
     * it)
     */
    Delivery decorate(ConsumerDeclaration consumer, Delivery delivery);

}
