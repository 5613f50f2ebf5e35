package io.varpulis.messaging;

import io.nats.client.impl.Headers;

import io.varpulis.container.DeliveryErrorHandler;
import io.varpulis.container.Outcome;
import io.varpulis.transport.Delivery;

/**
 * A {@link NatsListenerErrorHandler} as its listener's container asks it: the failure
 * shown with the delivery's metadata, its {@link ErrorAction} turned into the outcome the
 * container settles.
 */
final class ListenerErrorHandling implements DeliveryErrorHandler {

    private final String listenerId;

    private final NatsListenerErrorHandler handler;

    ListenerErrorHandling(String listenerId, NatsListenerErrorHandler handler) {
        this.listenerId = listenerId;
        this.handler = handler;
    }

    @Override
    public Outcome handle(Outcome.Failed failure, Delivery delivery) {
        ErrorAction action = handler
            .handle(new ListenerFailure(listenerId, failure.cause(), DeliveryMetadata.of(delivery), delivery.data(),
                    delivery.headers() == null ? new Headers() : delivery.headers()));
        if (action == null) {
            return failure;
        }
        return switch (action.kind()) {
            case RETRY -> failure;
            case PARK -> Outcome.poison(action.reason(), failure.cause());
            case SKIP -> Outcome.skipped(action.why(), failure.cause());
        };
    }

}
