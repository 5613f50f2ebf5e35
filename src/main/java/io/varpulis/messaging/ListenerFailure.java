package io.varpulis.messaging;

/**
 * A {@link NatsListener}'s failed delivery, as its {@link NatsListenerErrorHandler} sees
 * it.
 *
 * @param listenerId the listener's id
 * @param exception what the method (or the payload's conversion) threw, unwrapped
 * @param delivery the delivery's subject, stream sequence, attempt and max_deliver
 */
public record ListenerFailure(String listenerId, Throwable exception, DeliveryMetadata delivery) {
}
