package io.varpulis.pipeline;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What a processor knows about the delivery it is applying, and what it can do besides
 * emitting: give an output its identity ({@link #keyed}), park one element of a batch
 * input ({@link #park}), and check that this worker still owns the pipeline before an
 * effect outside the substrate ({@link #requireOwnership}).
 */
public interface ProcessingContext {

    /**
     * @return the pipeline group name
     */
    String group();

    /**
     * @return the pipeline name
     */
    String pipeline();

    /**
     * A stable identity of the input message: its {@code Nats-Msg-Id} header when the
     * publisher set one, otherwise {@code {stream}:{stream sequence}} on JetStream. The
     * same on every redelivery, so it can key idempotent updates. On core without a
     * header it is a per-process counter and gives no such guarantee.
     * @return the message id, never {@code null}
     */
    String messageId();

    /**
     * @return the delivery attempt, 1 for the first delivery (always 1 on core)
     */
    long attempt();

    /**
     * @return the pipeline's durable key-value state (a JetStream key-value bucket on
     * JetStream, memory on core)
     */
    KeyValueState state();

    /**
     * Parks one element of the input on its own, for an input that carries several events
     * in one message (a batch, {@link EventBatch}): the element that cannot be applied
     * goes to the DLQ with its own death envelope (reason {@code unprocessable}), while
     * the rest of the batch is applied (ADR-007's park, per element). The envelope's
     * {@code payload} is {@code element}, so a replay publishes it back on the input's
     * subject; its {@code parked_element} is {@code index}.
     * <p>
     * The park is published and its PubAck received before the input is acked, like the
     * outputs (emit before ack); if the apply throws, its parks are dropped with its
     * state writes. The park's {@code Nats-Msg-Id} is
     * {@code dlq:{stream}:{sequence}:{index}}: a redelivered input that parks the same
     * element again is stored once, whichever other elements it parks then.
     * <p>
     * An input of one event should throw {@link UnprocessableEventException} instead: the
     * whole message is then parked with its original bytes.
     * @param index the element's position in the batch, from 0
     * ({@link EventBatch.Element#index()})
     * @param element the element as an event: for an element that is not one, a batch of
     * it alone ({@link EventBatch#alone})
     * @param reason why it cannot be applied: the envelope's {@code last_error}
     * @throws IllegalArgumentException when the element or reason is {@code null}, the
     * index negative, or that index already parked in this apply
     * @throws IllegalStateException when called after the apply returned
     */
    void park(int index, Event element, String reason);

    /**
     * Gives one output its identity key: its {@code Nats-Msg-Id} on every route is then
     * {@code {input message id}/{group}/{to}/k:{key}} (SPEC section 9), the same on every
     * re-apply of the input that emits an output with that key, whatever else the
     * re-apply emits and in whichever order. Use what the output is, such as an alert's
     * (source, window) or the batch element it was read from; two outputs of one input
     * must not share a key. An output without a key gets {@code h:{hash of its encoded
     * bytes}}, so an id is never reused for a different event either way.
     * <p>
     * So an output without a key must be byte-deterministic for its input (no time of the
     * apply, random id or varying order of fields), or be given a key: a re-apply that
     * emits other bytes gets another id, and the copy is stored twice. An apply that
     * returns more than one output without a key is said once per pipeline at WARN.
     * <p>
     * A context that publishes nothing (a test's, a reference run's) may ignore the key.
     * @param output an event the processor returns from this apply
     * @param key 1 to {@value #MAX_OUTPUT_KEY_LENGTH} characters, no control characters
     * @return {@code output}, for {@code return List.of(context.keyed(alert, id))}
     * @throws IllegalArgumentException when the key is blank, too long or holds a control
     * character
     */
    default Event keyed(Event output, String key) {
        requireOutputKey(key);
        return output;
    }

    /** The longest output key, characters: it is part of a {@code Nats-Msg-Id} header. */
    int MAX_OUTPUT_KEY_LENGTH = 256;

    /**
     * @param key an output key
     * @return the key
     * @throws IllegalArgumentException when the key is {@code null}, blank, over
     * {@value #MAX_OUTPUT_KEY_LENGTH} characters, or holds a control character (it goes
     * in a header)
     */
    static String requireOutputKey(String key) {
        if (key == null || key.isBlank() || key.length() > MAX_OUTPUT_KEY_LENGTH
                || key.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("output key must be 1 to " + MAX_OUTPUT_KEY_LENGTH + " characters "
                    + "without control characters, got "
                    + (key == null ? "null" : "'" + key.replaceAll("\\p{Cntrl}", "?") + "'"));
        }
        return key;
    }

    /**
     * Checks, right before an effect outside the substrate (a file write, a call to
     * another system), that this worker still owns the pipeline (SPEC section 9, fencing
     * every effect): after a pause of the process it reads the state's fence from the
     * server first. Outputs and state writes are fenced without it.
     * @throws KeyValueState.StateFencedException when a later placement took the pipeline
     * over; let it propagate: the pipeline stops here
     * @throws KeyValueState.StateUnavailableException when ownership cannot be checked
     * now (the broker is away); the input is applied again once it is back
     */
    default void requireOwnership() {
    }

    /**
     * Makes the input's acknowledgement wait for an effect outside the substrate that
     * this apply made and whose durability is confirmed later, shared with other applies
     * (a group commit: one {@code fdatasync} for the lines several alerts appended). The
     * route ingress acks the input only once the effect, the apply's state writes and its
     * outputs are confirmed (ADR-007, ack after the effect); an effect that fails fails
     * the apply as a state write does (the input is nak'ed and applied again, or the
     * pipeline stops when the failure is a {@link KeyValueState.StateFencedException}).
     * The effect must have happened where another placement would see it (the line is in
     * the file) by the time the future completes, and only while this worker owns the
     * pipeline: made after {@link #requireOwnership()} passed, or after a state write
     * that the server's fence accepted (the alert sink writes its line once its claim is
     * stored).
     * <p>
     * A context that acknowledges nothing (a test's, a reference run's) waits for it
     * here, which is this default.
     * @param confirmed completes when the effect is durable, or exceptionally when it
     * cannot be made so
     * @throws RuntimeException this default: the effect's failure, unwrapped
     * @throws IllegalStateException when called after the apply returned
     */
    default void ackAfter(CompletableFuture<Void> confirmed) {
        try {
            confirmed.join();
        }
        catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

}
