package io.varpulis.container;

import io.varpulis.transport.Delivery;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Processes what an applying thread of one {@link DeliveryContainer} takes: each delivery
 * decorated (its observation) and watched, given to the adapter in its context (or, for a
 * batch adapter, the deliveries of one pull together), its outcome handed to the
 * {@link Settler}. Whatever the decoration throws leaves the delivery undecorated;
 * whatever the adapter throws is its outcome; only a {@link VirtualMachineError} other
 * than a {@link StackOverflowError} goes up, to stop the container.
 */
final class DeliveryProcessor {

    private final ContainerParts parts;

    private final DeliveryAdapter adapter;

    private final BatchDeliveryAdapter batchAdapter;

    private final Settler settler;

    /**
     * @param parts the container's parts
     * @param adapter what is done with each delivery, or {@code null}
     * @param batchAdapter what is done with each batch, or {@code null}
     * @param settler settles each outcome
     */
    DeliveryProcessor(ContainerParts parts, DeliveryAdapter adapter, BatchDeliveryAdapter batchAdapter,
            Settler settler) {
        this.parts = parts;
        this.adapter = adapter;
        this.batchAdapter = batchAdapter;
        this.settler = settler;
    }

    /**
     * @return the most deliveries one call takes: a batch adapter's batch size, else 1
     */
    int batchSize() {
        return batchAdapter == null ? 1 : batchAdapter.batchSize();
    }

    /**
     * @param received the deliveries taken together, 1 to {@link #batchSize()}
     */
    void process(List<Delivery> received) {
        if (batchAdapter != null) {
            processBatch(received);
        }
        else {
            process(received.get(0));
        }
    }

    /**
     * @param received one delivery
     */
    void process(Delivery received) {
        if (batchAdapter != null) {
            processBatch(List.of(received));
            return;
        }
        DeliveryWork work = prepare(received);
        if (work != null) {
            CompletionStage<Outcome> outcome = apply(work);
            work.returned();
            if (Outcomes.appliedNow(outcome)) {
                settler.settle(work, Outcome.applied());
            }
            else {
                settler.settleWhenDone(work, outcome);
            }
        }
    }

    /**
     * A delivery about to be applied, decorated and watched; {@code null} when it is
     * settled without an apply (the container stopped, or an earlier delivery of it still
     * hangs here).
     */
    private DeliveryWork prepare(Delivery received) {
        if (received.attempt() > 1) {
            parts.meters().redelivered();
        }
        DeliveryWork work = new DeliveryWork(received, decorate(received));
        if (parts.state().get() != Settlement.State.RUNNING) {
            settler.settle(work, parts.state().notApplied());
            return null;
        }
        if (parts.held().stillApplying(received.streamSequence())) {
            settler.settle(work, Outcome.stillApplying());
            return null;
        }
        parts.held().applying(work, Thread.currentThread());
        return work;
    }

    /**
     * Applies a batch: each delivery prepared and settled on its own, the adapter called
     * once for those to apply.
     */
    private void processBatch(List<Delivery> received) {
        List<DeliveryWork> works = new ArrayList<>(received.size());
        List<Delivery> deliveries = new ArrayList<>(received.size());
        for (Delivery delivery : received) {
            DeliveryWork work = prepare(delivery);
            if (work != null) {
                works.add(work);
                deliveries.add(work.delivery);
            }
        }
        if (works.isEmpty()) {
            return;
        }
        List<CompletionStage<Outcome>> outcomes;
        try {
            outcomes = batchAdapter.handle(deliveries);
            if (outcomes == null || outcomes.size() != works.size()) {
                throw new IllegalStateException(
                        "the batch adapter returned " + (outcomes == null ? "no" : outcomes.size()) + " outcomes for "
                                + works.size() + " deliveries");
            }
        }
        catch (Throwable e) {
            rethrowFatal(e);
            outcomes = Collections.nCopies(works.size(),
                    CompletableFuture.completedFuture(Outcome.failed(ErrorStage.LISTENER, e)));
        }
        // Those applied at once are acked in one pass (issue 42: a batch pays its
        // settling and meters once); the others are settled on their own by the rule.
        List<DeliveryWork> applied = new ArrayList<>(works.size());
        List<Integer> others = null;
        for (int i = 0; i < works.size(); i++) {
            works.get(i).returned();
            if (Outcomes.appliedNow(outcomes.get(i))) {
                applied.add(works.get(i));
            }
            else {
                others = others != null ? others : new ArrayList<>();
                others.add(i);
            }
        }
        settler.settleApplied(applied);
        if (others != null) {
            for (int i : others) {
                settler.settleWhenDone(works.get(i), outcomes.get(i));
            }
        }
    }

    /**
     * The delivery as the decorator makes it; the delivery itself when the decorator (an
     * observation handler or convention) throws: it is applied and settled unobserved.
     */
    private Delivery decorate(Delivery received) {
        try {
            return parts.runtime().decorator().decorate(parts.consumer(), received);
        }
        catch (Throwable e) {
            rethrowFatal(e);
            parts.errors().report(ErrorStage.OBSERVATION, received, e);
            return received;
        }
    }

    /**
     * Runs the adapter in the delivery's context. The adapter's own failures become its
     * outcome; a failure of the context itself (a scope an observation handler opens or
     * closes) is counted, and the adapter runs without it when it had not started.
     */
    private CompletionStage<Outcome> apply(DeliveryWork work) {
        AdapterCall call = new AdapterCall(work.delivery);
        try {
            return work.delivery.inContext(call);
        }
        catch (Throwable e) {
            rethrowFatal(e);
            parts.errors().report(ErrorStage.OBSERVATION, work.received, e);
            if (call.result != null) {
                return call.result;
            }
            work.undecorate();
            return new AdapterCall(work.received).get();
        }
    }

    /**
     * @throws VirtualMachineError the error, when it is one that stops a container (a
     * {@link StackOverflowError} unwound its stack and is a failure of one delivery)
     */
    static void rethrowFatal(Throwable error) {
        if (Settler.isFatal(error)) {
            throw (VirtualMachineError) error;
        }
    }

    /** One call of the adapter, whose failures are its outcome. */
    private final class AdapterCall implements Supplier<CompletionStage<Outcome>> {

        private final Delivery delivery;

        private volatile CompletionStage<Outcome> result;

        AdapterCall(Delivery delivery) {
            this.delivery = delivery;
        }

        @Override
        public CompletionStage<Outcome> get() {
            CompletionStage<Outcome> outcome;
            try {
                outcome = adapter.handle(delivery);
            }
            catch (Throwable e) {
                rethrowFatal(e);
                outcome = CompletableFuture.completedFuture(Outcome.failed(ErrorStage.LISTENER, e));
            }
            result = outcome;
            return outcome;
        }

    }

}
