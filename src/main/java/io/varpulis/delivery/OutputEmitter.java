package io.varpulis.delivery;

import io.varpulis.pipeline.Event;
import io.varpulis.transport.Delivery;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Publishes the events a pipeline emitted while applying one input, along its outgoing
 * routes.
 */
@FunctionalInterface
public interface OutputEmitter {

    /** Emits nothing: for pipelines without outgoing routes. */
    OutputEmitter NONE = (outputs, input) -> CompletableFuture.completedFuture(null);

    /**
     * @param outputs the events emitted
     * @param input the delivery they were emitted for (its message id seeds the outputs'
     * deterministic {@code Nats-Msg-Id}s, so a re-emission after redelivery is stored
     * once)
     * @return completes when every output is confirmed (PubAck on JetStream);
     * exceptionally when one was not
     */
    CompletableFuture<Void> emit(List<Event> outputs, Delivery input);

    /**
     * Emits outputs some of which the processor gave an identity key
     * ({@code ProcessingContext.keyed}); an emitter without message ids ignores the keys.
     * @param outputs the events emitted
     * @param keys their keys in output order ({@code null} entries for outputs without
     * one), or {@code null}
     * @param input the delivery they were emitted for
     * @return as {@link #emit(List, Delivery)}
     */
    default CompletableFuture<Void> emit(List<Event> outputs, List<String> keys, Delivery input) {
        return emit(outputs, input);
    }

}
