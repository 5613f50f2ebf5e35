package io.varpulis.container;

import java.time.Duration;

/**
 * What a {@link DeliveryContainer} tells of itself besides its deliveries: idle (no
 * delivery for its idle interval), no longer idle, stopped with a reason. Called on the
 * containers' settling threads, never on the client's; a listener that throws is logged
 * and ignored.
 */
public interface ContainerEvents {

    /** Tells nothing. */
    ContainerEvents NONE = new ContainerEvents() {
    };

    /**
     * @param container the container
     * @param idleFor how long it has had no delivery
     */
    default void idle(DeliveryContainer container, Duration idleFor) {
    }

    /**
     * @param container the container, which received a delivery after being idle
     * @param idleFor how long it had been idle
     */
    default void noLongerIdle(DeliveryContainer container, Duration idleFor) {
    }

    /**
     * @param container the container
     * @param reason why it stopped
     * @param cause the error that stopped it ({@link StopReason#ERROR}), or {@code null}
     */
    default void stopped(DeliveryContainer container, StopReason reason, Throwable cause) {
    }

}
