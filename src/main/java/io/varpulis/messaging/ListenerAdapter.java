package io.varpulis.messaging;

import io.varpulis.container.DeliveryAdapter;
import io.varpulis.container.ErrorStage;
import io.varpulis.container.Outcome;
import io.varpulis.messaging.GuardedConverter.ConverterFailedException;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.annotation.support.MethodArgumentNotValidException;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * What a {@link NatsListener} method's container does with each delivery (SPEC sections
 * 13 and 19), as an {@link Outcome}: call the method with its arguments resolved by
 * Spring Messaging (a payload that cannot be converted: poison, {@code undecodable}; a
 * converter that throws anything else: a failed apply at the {@code converter} stage; an
 * exception declared not retryable: poison, {@code unprocessable}; any other: a failed
 * apply, nak'ed and parked on the last delivery), wait for the {@code CompletionStage} it
 * returns, if any, without blocking, then publish what it returned and wait for the
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

    private final NatsTemplate template;

    /**
     * @param endpoint the listener's method and settings
     * @param template publishes replies
     */
    ListenerAdapter(ListenerEndpoint endpoint, NatsTemplate template) {
        this.endpoint = endpoint;
        this.template = template;
    }

    @Override
    public CompletionStage<Outcome> handle(Delivery delivery) {
        Object result;
        try {
            result = endpoint.method().invoke(delivery);
        }
        catch (Exception | Error e) {
            return done(failure(endpoint, delivery, e));
        }
        if (result instanceof CompletionStage<?> stage) {
            CompletableFuture<Outcome> outcome = new CompletableFuture<>();
            stage.whenComplete((value, error) -> {
                try {
                    if (error != null) {
                        outcome.complete(failure(endpoint, delivery, unwrap(error)));
                        return;
                    }
                    replyInContext(value, delivery).whenComplete((replied, failed) -> outcome
                        .complete(replied != null ? replied : Outcome.failed(unwrap(failed))));
                }
                catch (Throwable e) {
                    // A fatal error on the completing thread: settled as a failure here,
                    // never left without an outcome.
                    outcome.complete(Outcome.failed(e));
                }
            });
            return outcome;
        }
        return replied(result, delivery);
    }

    /**
     * Publishes an async return's reply in the delivery's context (its trace); without it
     * when the context throws (an observation handler's bug).
     */
    private CompletionStage<Outcome> replyInContext(Object value, Delivery delivery) {
        try {
            return delivery.inContext(() -> replied(value, delivery));
        }
        catch (RuntimeException contextFailed) {
            return replied(value, delivery);
        }
    }

    private CompletionStage<Outcome> replied(Object result, Delivery delivery) {
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

    /**
     * What a throw of the method, or of its arguments' resolution, makes of the delivery.
     * @param endpoint the listener
     * @param delivery the delivery (an empty payload is undecodable, whatever its type)
     * @param error what was thrown
     * @return its outcome
     * @throws VirtualMachineError a fatal error, rethrown: the container stops
     */
    static Outcome failure(ListenerEndpoint endpoint, Delivery delivery, Throwable error) {
        if (error instanceof VirtualMachineError fatal && !(error instanceof StackOverflowError)) {
            throw fatal;
        }
        if (error instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        if (error instanceof ConverterFailedException converter) {
            return Outcome.failed(ErrorStage.CONVERTER, converter.getCause());
        }
        if (error instanceof MessageConversionException
                || error instanceof MethodArgumentNotValidException && delivery.data().length == 0) {
            return Outcome.poison(ParkReason.UNDECODABLE, error);
        }
        if (error instanceof MethodArgumentResolutionException || endpoint.notRetryable(error)) {
            return Outcome.poison(ParkReason.UNPROCESSABLE, error);
        }
        return Outcome.failed(ErrorStage.LISTENER, error);
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
            Throwable cause = unwrap(error);
            return PublishException.find(cause).map(PublishException::isUnavailable).orElse(false)
                    ? Outcome.brokerAway(cause, () -> publish(reply)) : Outcome.failed(cause);
        });
    }

    private OutboundEvent reply(Object result, Delivery input) {
        OutboundEvent event = result instanceof OutboundEvent outbound ? outbound
                : OutboundEvent.to(ReplyAddress.of(input, endpoint.id(), endpoint.sendTo()), result);
        return event.messageId() == null ? event.withMessageId(input.messageId() + "/reply") : event;
    }

    static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The outcome of most deliveries, one instance rather than one per delivery. */
    private static final CompletionStage<Outcome> APPLIED = CompletableFuture.completedFuture(Outcome.applied());

    private static CompletionStage<Outcome> done(Outcome outcome) {
        return outcome == Outcome.applied() ? APPLIED : CompletableFuture.completedFuture(outcome);
    }

}
