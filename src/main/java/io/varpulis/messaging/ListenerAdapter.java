package io.varpulis.messaging;

import io.varpulis.container.DeliveryAdapter;
import io.varpulis.container.ErrorStage;
import io.varpulis.container.Outcome;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * What a {@link NatsListener} method's container does with each delivery (SPEC section
 * 13), as an {@link Outcome}: convert the payload into the parameter's type (one that
 * cannot be converted: poison, {@code undecodable}; a converter that throws anything
 * else: a failed apply at the {@code converter} stage), call the method (an exception
 * declared not retryable: poison, {@code unprocessable}; any other: a failed apply,
 * nak'ed and parked on the last delivery), then publish what it returned and wait for the
 * PubAck without blocking (emit before ack): to the request's reply subject, else to
 * {@code sendTo} ({@link ReplyAddress}; nowhere: poison, {@code unprocessable}). A reply
 * whose PubAck does not come because the broker is away (no responders during an
 * election, a timeout) is published again, with the same message id, once it may be back:
 * no delivery is spent on it (SPEC section 9).
 * <p>
 * A reply without a message id of its own gets {@code {input message id}/reply}, so a
 * reply published again after a redelivery of its input is stored once within the
 * stream's duplicate window.
 */
final class ListenerAdapter implements DeliveryAdapter {

    private final ListenerEndpoint endpoint;

    private final PayloadConverter.Reader payload;

    private final NatsTemplate template;

    /**
     * @param endpoint the listener's method and settings
     * @param converter converts payloads and replies
     * @param template publishes replies
     */
    ListenerAdapter(ListenerEndpoint endpoint, PayloadConverter converter, NatsTemplate template) {
        this.endpoint = endpoint;
        this.payload = endpoint.method().payloadReader(converter);
        this.template = template;
    }

    @Override
    public CompletionStage<Outcome> handle(Delivery delivery) {
        Object[] arguments;
        try {
            arguments = endpoint.method().arguments(delivery, payload);
        }
        catch (IOException e) {
            return done(Outcome.poison(ParkReason.UNDECODABLE, e));
        }
        catch (RuntimeException e) {
            // A converter that threw something other than a conversion failure: a bug,
            // not
            // the payload's fault; retried like a failed apply.
            return done(Outcome.failed(ErrorStage.CONVERTER, e));
        }
        Object result;
        try {
            result = endpoint.method().invoke(arguments);
        }
        catch (Exception | Error e) {
            if (e instanceof VirtualMachineError fatal) {
                throw fatal;
            }
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable failure = e instanceof InvocationTargetException && e.getCause() != null ? e.getCause() : e;
            return done(endpoint.notRetryable(failure) ? Outcome.poison(ParkReason.UNPROCESSABLE, failure)
                    : Outcome.failed(failure));
        }
        if (result == null) {
            return done(Outcome.applied());
        }
        OutboundEvent reply;
        try {
            reply = reply(result, delivery);
        }
        catch (ReplyAddress.Missing e) {
            return done(Outcome.poison(ParkReason.UNPROCESSABLE, e));
        }
        catch (RuntimeException e) {
            return done(Outcome.failed(e));
        }
        return publish(reply);
    }

    private CompletionStage<Outcome> publish(OutboundEvent reply) {
        CompletableFuture<PublishReceipt> receipt;
        try {
            receipt = template.send(reply);
        }
        catch (RuntimeException e) {
            receipt = CompletableFuture.failedFuture(e);
        }
        return receipt.handle((stored, error) -> {
            if (error == null) {
                return Outcome.applied();
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause()
                    : error;
            return PublishException.find(cause).map(PublishException::isUnavailable).orElse(false)
                    ? Outcome.brokerAway(cause, () -> publish(reply)) : Outcome.failed(cause);
        });
    }

    private OutboundEvent reply(Object result, Delivery input) {
        OutboundEvent event = result instanceof OutboundEvent outbound ? outbound
                : OutboundEvent.to(ReplyAddress.of(input, endpoint.id(), endpoint.sendTo()), result);
        return event.messageId() == null ? event.withMessageId(input.messageId() + "/reply") : event;
    }

    private static CompletionStage<Outcome> done(Outcome outcome) {
        return CompletableFuture.completedFuture(outcome);
    }

}
