package io.varpulis.container;

import io.varpulis.transport.Delivery;

import java.util.concurrent.CompletionStage;

/**
 * What a {@link DeliveryContainer} does with each delivery of its consumer: decode and
 * apply a route edge's event, convert and invoke a listener method, apply a heartbeat. It
 * returns an {@link Outcome}, at once or once its effects are confirmed (outputs, replies
 * and state writes awaited without blocking the container's thread), and never acks, naks
 * or parks the delivery itself: the container settles it (SPEC section 18).
 */
@FunctionalInterface
public interface DeliveryAdapter {

    /**
     * @param delivery the delivery, with its observation current (the adapter's publishes
     * continue its trace; code it runs later on another thread does so inside
     * {@link Delivery#inContext})
     * @return its outcome; a stage completed exceptionally, or an exception thrown here,
     * is a failed apply ({@link Outcome#failed})
     */
    CompletionStage<Outcome> handle(Delivery delivery);

}
