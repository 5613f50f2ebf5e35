package io.varpulis.pipeline;

import java.util.List;

/**
 * The logic of a pipeline: one event in, zero or more events out.
 * <p>
 * The route ingress calls it once per delivery, in delivery order, on one thread per
 * route edge. The outputs are published on the pipeline's outgoing routes and confirmed
 * (PubAck) before the input is acked (SPEC section 4, emit before ack). A redelivered
 * input is applied again, so an implementation that keeps state makes its updates
 * idempotent per {@link ProcessingContext#messageId()}.
 * <p>
 * A redelivered input's outputs are dropped as duplicates by their {@code Nats-Msg-Id}
 * (SPEC section 9): an output given a key ({@link ProcessingContext#keyed}) by that key,
 * one without by the hash of its bytes. An output without a key must therefore be
 * byte-deterministic for its input (no time of the apply, no random id), or be given a
 * key.
 */
@FunctionalInterface
public interface EventProcessor {

    /**
     * Applies one event.
     * @param event the decoded input event
     * @param context where the event came from (message id, delivery attempt) and the
     * pipeline's durable state
     * @return the events to emit on the outgoing routes, possibly empty, never
     * {@code null}
     * @throws Exception any failure: the input is nak'ed with the 2 s delay and
     * redelivered, and parked in the DLQ when it fails on its last delivery (max_deliver,
     * ADR-007)
     */
    List<Event> process(Event event, ProcessingContext context) throws Exception;

}
