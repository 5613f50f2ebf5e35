package io.varpulis.delivery;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.ProcessingContext;
import io.varpulis.pipeline.StateTransaction;
import io.varpulis.transport.Delivery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One pipeline as its route ingresses share it on a worker: its processor and its state,
 * applied one event at a time. A pipeline with several input edges gets deliveries on
 * several threads, and processors (like the detector's read-then-write of its state) rely
 * on one at a time.
 * <p>
 * Each apply runs on a {@link StateTransaction}: its writes reach the state only when the
 * processor returned, so an apply that throws leaves nothing behind, and the
 * transaction's commit gives the flush that confirms them.
 * <p>
 * Each apply first passes the pipeline's {@link OwnershipFence}: a pipeline superseded or
 * stopped on this worker, or not proven its owner after a pause of the process, applies
 * nothing.
 * <p>
 * Longer than most: the fence, the processor, the keying of outputs and the meters are
 * the steps of one apply on one pipeline; split, an output could leave unfenced.
 */
public final class DeployedPipeline {

    private static final Logger log = LoggerFactory.getLogger(DeployedPipeline.class);

    private final String group;

    private final String name;

    private final EventProcessor processor;

    private final KeyValueState state;

    private final String partitionTag;

    private final Partitioning partitioning;

    private final OwnershipFence fence;

    private final AtomicLong eventsIn = new AtomicLong();

    /**
     * Whether the WARN about outputs without a key was said; read and written under the
     * apply's lock.
     */
    private boolean warnedUnkeyed;

    private final AtomicLong eventsOut = new AtomicLong();

    /**
     * @param group the pipeline group
     * @param name the pipeline
     * @param processor its processor
     * @param state its state (owned by the caller, who closes it)
     * @param partitionTag the {@code partition} tag of its meters
     * @param partitioning how its events are spread over its partitions, {@code null}
     * when unpartitioned
     * @param fence whether this worker still owns it, checked before each apply and by
     * its sinks
     */
    public DeployedPipeline(String group, String name, EventProcessor processor, KeyValueState state,
            String partitionTag, Partitioning partitioning, OwnershipFence fence) {
        this.fence = fence;
        this.group = group;
        this.name = name;
        this.processor = processor;
        this.state = state;
        this.partitionTag = partitionTag;
        this.partitioning = partitioning;
    }

    /**
     * Applies one event.
     * @param event the decoded event
     * @param messageId the input's stable message id
     * @param attempt its delivery attempt
     * @return the outputs, the elements parked on their own, and the confirmation of the
     * state writes this apply made (and of every earlier one)
     * @throws Exception whatever the processor threw; its state writes are then dropped.
     * A {@link KeyValueState.StateFencedException} means another writer owns the state
     * (or the {@link OwnershipFence} found the pipeline superseded: nothing was applied).
     */
    public Applied apply(Event event, String messageId, long attempt) throws Exception {
        return apply(event, messageId, null, attempt);
    }

    /**
     * Applies one delivered event; its message id is worked out only if the processor
     * asks for it.
     * @param event the decoded event
     * @param delivery its delivery (message id and attempt)
     * @return as {@link #apply(Event, String, long)}
     * @throws Exception as {@link #apply(Event, String, long)}
     */
    public Applied apply(Event event, Delivery delivery) throws Exception {
        return apply(event, null, delivery, delivery.attempt());
    }

    private synchronized Applied apply(Event event, String messageId, Delivery delivery, long attempt)
            throws Exception {
        fence.check();
        StateTransaction transaction = new StateTransaction(state);
        Context context = new Context(group, name, messageId, delivery, attempt, transaction, fence);
        List<Event> emitted;
        List<String> keys;
        try {
            List<Event> outputs = processor.process(event, context);
            emitted = outputs == null ? List.of() : outputs;
            keys = keysOf(emitted, context.keys);
            warnOnceWhenUnkeyed(emitted, keys);
        }
        catch (Exception | Error e) {
            transaction.discard();
            throw e;
        }
        finally {
            context.closed = true;
        }
        CompletableFuture<Void> stored = transaction.commit();
        if (context.effects != null) {
            // The effects' confirmations gate the ack like the state writes
            // (ProcessingContext.ackAfter).
            // First: allOf reports its first failed argument, and a fenced state write
            // must win over an effect's
            // failure, so that a superseded owner stops instead of nak'ing (or parking)
            // what its successor owns.
            context.effects.add(0, stored);
            stored = CompletableFuture.allOf(context.effects.toArray(CompletableFuture[]::new));
        }
        eventsIn.incrementAndGet();
        eventsOut.addAndGet(emitted.size());
        return new Applied(emitted, keys, context.parked == null ? List.of() : List.copyOf(context.parked), stored);
    }

    /**
     * Says once, at WARN, that an apply returned several outputs without a key: their ids
     * then come from their bytes alone, so a redelivered input whose outputs are not byte
     * for byte the same is emitted twice.
     */
    private void warnOnceWhenUnkeyed(List<Event> outputs, List<String> keys) {
        if (outputs.size() < 2 || warnedUnkeyed) {
            return;
        }
        long unkeyed = keys == null ? outputs.size() : keys.stream().filter(key -> key == null).count();
        if (unkeyed > 1) {
            warnedUnkeyed = true;
            log.warn("pipeline {}/{} returned {} outputs without a key from one apply: each one's message id is the "
                    + "hash of its bytes, so an output that is not byte-deterministic for its input (a timestamp of "
                    + "the apply, a random id) is stored again when the input is redelivered; give such outputs a key "
                    + "with ProcessingContext.keyed (said once per pipeline)", group, name, unkeyed);
        }
    }

    /**
     * The outputs' keys in output order ({@code null} for an output given none).
     * @throws IllegalStateException when two outputs have the same key: they would share
     * a message id
     */
    private static List<String> keysOf(List<Event> outputs, Map<Event, String> keys) {
        if (keys == null) {
            return null;
        }
        List<String> ordered = new ArrayList<>(outputs.size());
        Set<String> distinct = new HashSet<>();
        for (Event output : outputs) {
            String key = keys.get(output);
            if (key != null && !distinct.add(key)) {
                throw new IllegalStateException("two outputs of one apply have the output key '" + key + "': give "
                        + "each output its own key (ProcessingContext.keyed)");
            }
            ordered.add(key);
        }
        return ordered;
    }

    /**
     * @return whether this worker still owns the pipeline, checked before each apply
     */
    public OwnershipFence fence() {
        return fence;
    }

    /**
     * @return the pipeline group
     */
    public String group() {
        return group;
    }

    /**
     * @return the pipeline name
     */
    public String name() {
        return name;
    }

    /**
     * @return the {@code partition} tag of its meters
     */
    public String partitionTag() {
        return partitionTag;
    }

    /**
     * @return how the pipeline's events are spread over its partitions, empty when
     * unpartitioned
     */
    public Optional<Partitioning> partitioning() {
        return Optional.ofNullable(partitioning);
    }

    /**
     * @return the pipeline's state
     */
    public KeyValueState state() {
        return state;
    }

    /**
     * @return events applied (an event applied again after a redelivery counts again)
     */
    public long eventsIn() {
        return eventsIn.get();
    }

    /**
     * @return events emitted
     */
    public long eventsOut() {
        return eventsOut.get();
    }

    /**
     * What one apply produced.
     *
     * @param outputs the events to emit on the outgoing routes
     * @param keys their output keys in the same order ({@code null} entries for outputs
     * given none), or {@code null} when none was given ({@link ProcessingContext#keyed})
     * @param parked the elements of a batch input the processor parked on their own
     * ({@link ProcessingContext#park})
     * @param stored completes when the apply's state writes are stored (see
     * {@link KeyValueState#flush()}) and the effects it asked the ack to wait for are
     * confirmed ({@link ProcessingContext#ackAfter})
     */
    public record Applied(List<Event> outputs, List<String> keys, List<ParkedElement> parked,
            CompletableFuture<Void> stored) {
    }

    /**
     * One element of a batch input parked on its own.
     *
     * @param index its position in the batch, from 0
     * @param element the element as an event
     * @param reason why it could not be applied
     */
    public record ParkedElement(int index, Event element, String reason) {
    }

    private static final class Context implements ProcessingContext {

        private final String group;

        private final String pipeline;

        private final Delivery delivery;

        private final long attempt;

        private final KeyValueState state;

        private final OwnershipFence fence;

        /**
         * The output keys given, by output identity, or {@code null} while there is none.
         */
        private Map<Event, String> keys;

        /**
         * The input's message id, or {@code null} until asked for (then from the
         * delivery).
         */
        private String messageId;

        /** The elements parked on their own, or {@code null} while there is none. */
        private List<ParkedElement> parked;

        /**
         * The confirmations of effects the ack waits for, or {@code null} while there is
         * none.
         */
        private List<CompletableFuture<Void>> effects;

        /** Set when the apply returned: a park after that would never be published. */
        private boolean closed;

        Context(String group, String pipeline, String messageId, Delivery delivery, long attempt, KeyValueState state,
                OwnershipFence fence) {
            this.fence = fence;
            this.group = group;
            this.pipeline = pipeline;
            this.messageId = messageId;
            this.delivery = delivery;
            this.attempt = attempt;
            this.state = state;
        }

        @Override
        public String group() {
            return group;
        }

        @Override
        public String pipeline() {
            return pipeline;
        }

        @Override
        public String messageId() {
            if (messageId == null && delivery != null) {
                messageId = delivery.messageId();
            }
            return messageId;
        }

        @Override
        public long attempt() {
            return attempt;
        }

        @Override
        public KeyValueState state() {
            return state;
        }

        @Override
        public Event keyed(Event output, String key) {
            ProcessingContext.requireOutputKey(key);
            if (output == null) {
                throw new IllegalArgumentException("keyed needs an output, got null");
            }
            if (keys == null) {
                keys = new IdentityHashMap<>();
            }
            keys.put(output, key);
            return output;
        }

        @Override
        public void requireOwnership() {
            fence.check();
        }

        @Override
        public void ackAfter(CompletableFuture<Void> confirmed) {
            if (closed) {
                throw new IllegalStateException(
                        "ackAfter after the apply of " + messageId() + " returned: the ack " + "may be sent already");
            }
            if (confirmed == null) {
                throw new IllegalArgumentException("ackAfter needs a future, got null");
            }
            if (effects == null) {
                effects = new ArrayList<>();
            }
            effects.add(confirmed);
        }

        @Override
        public void park(int index, Event element, String reason) {
            if (closed) {
                throw new IllegalStateException("park of element " + index + " after the apply of " + messageId()
                        + " returned: park only while applying");
            }
            if (element == null || reason == null || index < 0) {
                throw new IllegalArgumentException("park needs an index from 0, an element and a reason, got " + index
                        + ", " + element + ", " + reason);
            }
            if (parked == null) {
                parked = new ArrayList<>();
            }
            else if (parked.stream().anyMatch(p -> p.index() == index)) {
                throw new IllegalArgumentException("element " + index + " of " + messageId() + " is parked already");
            }
            parked.add(new ParkedElement(index, element, reason));
        }

    }

}
