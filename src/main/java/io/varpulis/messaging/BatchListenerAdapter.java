package io.varpulis.messaging;

import io.varpulis.container.BatchDeliveryAdapter;
import io.varpulis.container.Outcome;
import io.varpulis.transport.Delivery;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a batch {@link NatsListener}'s container does with the deliveries of one pull
 * (SPEC section 19): each payload converted on its own (one that cannot be: parked
 * {@code undecodable}, left out of the list), the method called once with the list; each
 * element's outcome settled by the rule, with its own observation and meters. When it
 * returns (or the stage it returns completes), all are applied; a
 * {@link BatchListenerFailedException} names the failed element: those before it are
 * applied, it fails by the rule, those after it are passed again in a new call; any other
 * exception fails them all.
 * <p>
 * A method that returns normally costs no stage per element: every element applied gets
 * the one completed {@link Outcome#applied()} stage, which the container acks in one pass
 * (issue 42); a future is made per element only for a method that returns a stage.
 */
final class BatchListenerAdapter implements BatchDeliveryAdapter {

    /** The outcome of an element applied, one instance for every element. */
    private static final CompletionStage<Outcome> APPLIED = CompletableFuture.completedFuture(Outcome.applied());

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
        Slots outcomes = new Slots(deliveries.size());
        List<Object> elements = new ArrayList<>(deliveries.size());
        List<Delivery> converted = new ArrayList<>(deliveries.size());
        int[] indexes = new int[deliveries.size()];
        for (int i = 0; i < deliveries.size(); i++) {
            Delivery delivery = deliveries.get(i);
            try {
                elements.add(endpoint.method().element(delivery));
                indexes[converted.size()] = i;
                converted.add(delivery);
            }
            catch (RuntimeException e) {
                outcomes.complete(i, ListenerAdapter.failure(endpoint, delivery, e));
            }
        }
        call(elements, converted, Arrays.copyOf(indexes, converted.size()), outcomes);
        return outcomes.stages();
    }

    /**
     * Calls the method with the elements, and again with those after a failed one.
     * @param indexes each element's index in the batch
     */
    private void call(List<Object> elements, List<Delivery> deliveries, int[] indexes, Slots outcomes) {
        if (elements.isEmpty()) {
            return;
        }
        Object result;
        try {
            result = endpoint.method().invokeBatch(List.copyOf(elements));
        }
        catch (Exception | Error e) {
            settle(elements, deliveries, indexes, outcomes, e);
            return;
        }
        if (result instanceof CompletionStage<?> stage) {
            outcomes.later(indexes);
            stage.whenComplete((value, error) -> {
                if (error == null) {
                    outcomes.applied(indexes, 0, indexes.length);
                }
                else {
                    settle(elements, deliveries, indexes, outcomes, ListenerAdapter.unwrap(error));
                }
            });
        }
        else {
            outcomes.applied(indexes, 0, indexes.length);
        }
    }

    private void settle(List<Object> elements, List<Delivery> deliveries, int[] indexes, Slots outcomes,
            Throwable error) {
        int failed = error instanceof BatchListenerFailedException named ? named.indexIn(elements) : -1;
        if (failed < 0) {
            for (int i = 0; i < indexes.length; i++) {
                outcomes.complete(indexes[i], ListenerAdapter.failure(endpoint, deliveries.get(i), error));
            }
            return;
        }
        outcomes.applied(indexes, 0, failed);
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        outcomes.complete(indexes[failed], ListenerAdapter.failure(endpoint, deliveries.get(failed), cause));
        call(elements.subList(failed + 1, elements.size()), deliveries.subList(failed + 1, deliveries.size()),
                Arrays.copyOfRange(indexes, failed + 1, indexes.length), outcomes);
    }

    /**
     * The outcome of each delivery of one call, by its index: a completed stage, or a
     * future completed when a stage the method returned completes.
     */
    private static final class Slots {

        private final CompletionStage<Outcome>[] stages;

        @SuppressWarnings("unchecked")
        Slots(int size) {
            this.stages = new CompletionStage[size];
        }

        /** The elements at these indexes wait for a stage the method returned. */
        void later(int[] indexes) {
            for (int index : indexes) {
                if (stages[index] == null) {
                    stages[index] = new CompletableFuture<>();
                }
            }
        }

        void applied(int[] indexes, int from, int to) {
            for (int i = from; i < to; i++) {
                complete(indexes[i], Outcome.applied());
            }
        }

        void complete(int index, Outcome outcome) {
            CompletionStage<Outcome> stage = stages[index];
            if (stage == null) {
                stages[index] = outcome == Outcome.applied() ? APPLIED : CompletableFuture.completedFuture(outcome);
            }
            else {
                ((CompletableFuture<Outcome>) stage).complete(outcome);
            }
        }

        List<CompletionStage<Outcome>> stages() {
            return Arrays.asList(stages);
        }

    }

}
