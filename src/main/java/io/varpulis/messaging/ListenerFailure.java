package io.varpulis.messaging;

import io.nats.client.impl.Headers;

/**
 * A {@link NatsListener}'s failed delivery, as its {@link NatsListenerErrorHandler} sees
 * it.
 *
 * @param listenerId the listener's id
 * @param exception what the method (or the payload's conversion) threw, unwrapped
 * @param delivery the delivery's subject, stream sequence, attempt and max_deliver
 * @param payload the payload's bytes, as received
 * @param headers the message's NATS headers (empty when it had none)
 */
public record ListenerFailure(String listenerId, Throwable exception, DeliveryMetadata delivery, byte[] payload,
        Headers headers) {
}
