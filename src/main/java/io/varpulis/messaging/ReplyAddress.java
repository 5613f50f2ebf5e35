package io.varpulis.messaging;

import io.varpulis.nats.Subjects;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.Requester;

/**
 * Where a listener's return value goes (SPEC section 19), as Spring's {@code @SendTo}
 * with the request's own reply address first: the delivery's
 * {@value Requester#REPLY_TO_HEADER} header (a stored request); else, on core, the
 * message's reply-to when the listener has no {@code sendTo} (a core request: a
 * template's {@code sendAndReceive}, jnats' {@code request}, {@code nats request}); else
 * {@code sendTo}. On core a listener with a {@code sendTo} does not answer a reply-to: a
 * message that a JetStream publisher sent carries its PubAck inbox as reply-to, and a
 * reply there would be taken for the PubAck. Pure.
 */
final class ReplyAddress {

    private ReplyAddress() {
    }

    /**
     * @param delivery the request
     * @param listener the listener's id, for the error
     * @param sendTo the listener's {@code sendTo}, or empty
     * @return the subject to publish the reply on
     * @throws Missing when the delivery names none and the listener has no {@code sendTo}
     */
    static String of(Delivery delivery, String listener, String sendTo) {
        String named = delivery.headers() == null ? null : delivery.headers().getFirst(Requester.REPLY_TO_HEADER);
        if (named != null && !named.isBlank()) {
            if (!named.startsWith(Subjects.REPLY_ROOT + ".")) {
                throw new Missing("listener " + listener + " refuses the reply subject " + named + " named by "
                        + Requester.REPLY_TO_HEADER + ": a stored request's replies go under " + Subjects.REPLY_ROOT
                        + ".>, never to another subject a publisher chose");
            }
            return named;
        }
        if (sendTo.isBlank() && delivery.replyTo() != null) {
            return delivery.replyTo();
        }
        if (sendTo.isBlank()) {
            throw new Missing("listener " + listener + " returned a value for a message that is not a request (no "
                    + Requester.REPLY_TO_HEADER + " header, no reply-to on core) and has no sendTo subject; send it "
                    + "with NatsTemplate.sendAndReceive, set @NatsListener(sendTo = ...) or varpulis.nats.listeners."
                    + listener + ".send-to, or return an OutboundEvent");
        }
        return sendTo;
    }

    /**
     * A return value with nowhere to go: no retry can give the message a reply address,
     * so it is parked ({@code unprocessable}).
     */
    static final class Missing extends IllegalStateException {

        Missing(String message) {
            super(message);
        }

    }

}
