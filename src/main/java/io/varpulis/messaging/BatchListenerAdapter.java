package io.varpulis.messaging;

import io.varpulis.container.BatchDeliveryAdapter;
import io.varpulis.container.Outcome;
import io.varpulis.transport.Delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a batch {@link NatsListener}'s container does with the deliveries of one pull
 * (SPEC section 19): each payload converted on its own (one that cannot be: parked
 * {@code undecodable}, left out of the list), the method called once with the list; each
 * element's outcome settled on its own by the rule, with its own observation and meters.
 * When it returns (or the stage it returns completes), all are applied; a
 * {@link BatchListenerFailedException} names the failed element: those before it are
 * applied, it fails by the rule, those after it are passed again in a new call; any other
 * exception fails them all.
 */
final class BatchListenerAdapter implements BatchDeliveryAdapter {

    private final ListenerEndpoint endpoint;

    BatchListenerAdapter(ListenerEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public int batchSize() {
        return endpoint.batchSize();
    }

    @Override
    public List<CompletionStage<Outcome>> handle(List<Delivery> deliveries) {
        List<CompletableFuture<Outcome>> outcomes = new ArrayList<>(deliveries.size());
        List<Object> elements = new ArrayList<>(deliveries.size());
        List<CompletableFuture<Outcome>> pending = new ArrayList<>(deliveries.size());
        for (Delivery delivery : deliveries) {
            CompletableFuture<Outcome> outcome = new CompletableFuture<>();
            outcomes.add(outcome);
            try {
                elements.add(endpoint.method().element(delivery));
                pending.add(outcome);
            }
            catch (RuntimeException e) {
                outcome.complete(ListenerAdapter.failure(endpoint, delivery, e));
            }
        }
        List<Delivery> applied = new ArrayList<>(pending.size());
        for (int i = 0; i < deliveries.size(); i++) {
            if (!outcomes.get(i).isDone()) {
                applied.add(deliveries.get(i));
            }
        }
        call(elements, applied, pending);
        return List.copyOf(outcomes);
    }

    /** Calls the method with the elements, and again with those after a failed one. */
    private void call(List<Object> elements, List<Delivery> deliveries, List<CompletableFuture<Outcome>> outcomes) {
        if (elements.isEmpty()) {
            return;
        }
        Object result;
        try {
            result = endpoint.method().invokeBatch(List.copyOf(elements));
        }
        catch (Exception | Error e) {
            settle(elements, deliveries, outcomes, e);
            return;
        }
        if (result instanceof CompletionStage<?> stage) {
            stage.whenComplete((value, error) -> {
                if (error == null) {
                    outcomes.forEach(outcome -> outcome.complete(Outcome.applied()));
                }
                else {
                    settle(elements, deliveries, outcomes, ListenerAdapter.unwrap(error));
                }
            });
        }
        else {
            outcomes.forEach(outcome -> outcome.complete(Outcome.applied()));
        }
    }

    private void settle(List<Object> elements, List<Delivery> deliveries, List<CompletableFuture<Outcome>> outcomes,
            Throwable error) {
        int failed = error instanceof BatchListenerFailedException named ? named.indexIn(elements) : -1;
        if (failed < 0) {
            for (int i = 0; i < outcomes.size(); i++) {
                outcomes.get(i).complete(ListenerAdapter.failure(endpoint, deliveries.get(i), error));
            }
            return;
        }
        for (int i = 0; i < failed; i++) {
            outcomes.get(i).complete(Outcome.applied());
        }
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        outcomes.get(failed).complete(ListenerAdapter.failure(endpoint, deliveries.get(failed), cause));
        call(elements.subList(failed + 1, elements.size()), deliveries.subList(failed + 1, deliveries.size()),
                outcomes.subList(failed + 1, outcomes.size()));
    }

}
