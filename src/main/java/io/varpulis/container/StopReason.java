package io.varpulis.container;

/**
 * Why a {@link DeliveryContainer} stopped, in the manner of Spring Kafka's
 * {@code ConsumerStoppedEvent.Reason}.
 */
public enum StopReason {

    /** Stopped or drained on purpose (undeployed, moved, the service closing). */
    NORMAL,

    /**
     * Another writer owns what it applied (SPEC section 9): it stopped without any
     * effect.
     */
    FENCED,

    /**
     * A {@link VirtualMachineError} (other than a {@link StackOverflowError}) stopped it:
     * logged at ERROR and shown in the health; its deliveries are left for redelivery.
     */
    ERROR

}
