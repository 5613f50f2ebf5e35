package io.varpulis.delivery;

import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.container.DeliveryAdapter;
import io.varpulis.container.Outcome;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.EventTypePattern;
import io.varpulis.pipeline.KeyValueState.StateFencedException;
import io.varpulis.pipeline.KeyValueState.StateUnavailableException;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.pipeline.UndecodableEventException;
import io.varpulis.pipeline.UnprocessableEventException;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.ParkReason;
import io.varpulis.transport.PublishException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The adapter of one pipeline on one route edge (ADR-007, SPEC sections 4, 9 and 11):
 * what its {@link io.varpulis.container.DeliveryContainer} does with each delivery,
 * returned as an {@link Outcome} that the container settles:
 * <ol>
 * <li>decode the payload (undecodable: poison);</li>
 * <li>check that the edge carries its event type (one it does not carry: poison,
 * {@code unroutable});</li>
 * <li>on a partition, check that its key belongs here: an event without a key is poison
 * ({@code unprocessable}), one whose key picks another partition is republished there, or
 * is poison ({@code unroutable}) without a route;</li>
 * <li>apply it with the pipeline's processor (an {@link UnprocessableEventException}:
 * poison), its state writes staged and committed when the processor returns;</li>
 * <li>receive the PubAcks of the state writes, which the server refuses once a later
 * placement opened the state; then publish the outputs and the elements parked on their
 * own and receive their PubAcks (emit before ack; state before outputs: a superseded
 * owner publishes nothing, SPEC section 9): applied.</li>
 * </ol>
 * A broker that is away (no responders, a PubAck timeout, a state read without a leader,
 * ownership not provable after a pause) is {@link Outcome#brokerAway} with the step to
 * run again: the apply on the same state, or only the publishes with the same message ids
 * once the state is stored. A later placement's fence ({@link StateFencedException}) is
 * {@link Outcome#fenced}: the ingress stops applying and tells its
 * {@link OwnershipListener}, which stops the pipeline on this worker. Any other failure
 * is {@link Outcome#failed}.
 */
public class RouteIngress implements DeliveryAdapter {

    private static final Logger log = LoggerFactory.getLogger(RouteIngress.class);

    private final RouteEdge edge;

    private final List<String> eventTypes;

    private final DeployedPipeline pipeline;

    private final OutputEmitter emitter;

    private final EventCodec codec;

    private final DeadLetterParker parker;

    private final OwnershipListener ownership;

    private final boolean everyEventType;

    private volatile OutputEmitter rerouter = OutputEmitter.NONE;

    private volatile boolean stopped;

    /**
     * Told when the pipeline's state is owned by another writer.
     */
    @FunctionalInterface
    public interface OwnershipListener {

        /** Ignores it (the ingress still stops). */
        OwnershipListener NONE = (edge, reason) -> {
        };

        /**
         * Told by every ingress of the pipeline that meets the fence (each edge's,
         * possibly more than once): the pipeline's {@link OwnershipFence#supersede} says
         * which call is the first.
         * @param edge the edge whose ingress stopped
         * @param reason who owns the state now
         */
        void lost(RouteEdge edge, StateFencedException reason);

    }

    /**
     * @param edge the route edge this ingress consumes; the consuming pipeline is
     * {@code edge.to()}
     * @param eventTypes the event-type patterns the edge carries (its routes'); others
     * are parked as unroutable
     * @param pipeline the pipeline's processor, state and fence
     * @param emitter publishes the processor's outputs and confirms them
     * @param codec decodes payloads
     * @param parker publishes the envelopes of batch elements parked on their own
     * @param ownership told when another writer owns the pipeline's state
     */
    public RouteIngress(RouteEdge edge, List<String> eventTypes, DeployedPipeline pipeline, OutputEmitter emitter,
            EventCodec codec, DeadLetterParker parker, OwnershipListener ownership) {
        this.edge = edge;
        this.eventTypes = List.copyOf(eventTypes);
        this.pipeline = pipeline;
        this.emitter = emitter;
        this.codec = codec;
        this.parker = parker;
        this.ownership = ownership;
        this.everyEventType = this.eventTypes.contains("*");
    }

    /**
     * Sets where an ingress of one partition sends an event whose key belongs to another
     * partition (published there by hand, or before the pipeline's partition count
     * changed): an emitter along this edge's routes, which puts it on its key's
     * partition. Without one such an event is parked ({@code unroutable}).
     * @param emitter the emitter, usually {@link RouteEmitter#of} on the routes of this
     * edge
     * @return this ingress
     */
    public RouteIngress reroutingTo(OutputEmitter emitter) {
        this.rerouter = emitter;
        return this;
    }

    /**
     * Stops applying: from now on every delivery, and every step waiting for the broker,
     * is {@link Outcome#stopped}. Idempotent.
     */
    public void stop() {
        stopped = true;
    }

    /**
     * @return the edge this ingress consumes
     */
    public RouteEdge edge() {
        return edge;
    }

    /**
     * @return the pipeline it applies to
     */
    public DeployedPipeline pipeline() {
        return pipeline;
    }

    @Override
    public CompletionStage<Outcome> handle(Delivery delivery) {
        if (stopped) {
            return stopped("pipeline " + pipeline.name() + " stopped on this worker");
        }
        Event event;
        try {
            event = codec.decode(delivery.data());
        }
        catch (UndecodableEventException e) {
            return done(Outcome.poison(ParkReason.UNDECODABLE, e));
        }
        if (!carries(event.eventType())) {
            return done(Outcome.poison(ParkReason.UNROUTABLE,
                    new UnroutableEventException(event.eventType(), edge, eventTypes)));
        }
        if (edge.isPartition() && pipeline.partitioning().isPresent()) {
            CompletionStage<Outcome> elsewhere = offPartition(delivery, event, pipeline.partitioning().get());
            if (elsewhere != null) {
                return elsewhere;
            }
        }
        return apply(delivery, event);
    }

    private boolean carries(String eventType) {
        if (everyEventType) {
            return true;
        }
        for (String pattern : eventTypes) {
            if (EventTypePattern.matches(pattern, eventType)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A partition applies only the keys it owns (SPEC section 11): an event without a
     * text key is poison ({@code unprocessable}); one whose key picks another partition
     * (a publisher that hashed with another partition count, or an event stored before
     * the count changed) is republished to that partition, applied once its PubAck came
     * (emit before ack), since applying it here would split its key's state over two
     * partitions. It never loops: the partition it goes to owns its key.
     * @return the outcome, or {@code null} when the event belongs here
     */
    private CompletionStage<Outcome> offPartition(Delivery delivery, Event event, Partitioning partitioning) {
        int owner;
        try {
            owner = partitioning.partitionOf(event);
        }
        catch (UnprocessableEventException e) {
            return done(Outcome.poison(ParkReason.UNPROCESSABLE, e));
        }
        if (owner == edge.partition()) {
            return null;
        }
        if (rerouter == OutputEmitter.NONE) {
            return done(Outcome.poison(ParkReason.UNROUTABLE, new IllegalArgumentException("event with "
                    + partitioning.key() + " '" + event.fields().get(partitioning.key()) + "' belongs to partition "
                    + owner + " of " + partitioning.partitions() + " but came on " + edge.subject() + ": publish to "
                    + "the unpartitioned subject " + new RouteEdge(edge.group(), edge.from(), edge.to()).subject()
                    + " and the pipeline partitions it")));
        }
        log.info("{}: key {} belongs to partition {} of {}, not {}; republished there", delivery, partitioning.key(),
                owner, partitioning.partitions(), edge.partition());
        return reroute(delivery, event);
    }

    private CompletionStage<Outcome> reroute(Delivery delivery, Event event) {
        CompletableFuture<Void> emitted;
        try {
            emitted = rerouter.emit(List.of(event), delivery);
        }
        catch (RuntimeException e) {
            emitted = CompletableFuture.failedFuture(e);
        }
        return emitted.handle((ok, error) -> error == null ? Outcome.applied()
                : published(unwrap(error), () -> reroute(delivery, event)));
    }

    private CompletionStage<Outcome> apply(Delivery delivery, Event event) {
        DeployedPipeline.Applied applied;
        try {
            applied = pipeline.apply(event, delivery);
        }
        catch (UnprocessableEventException e) {
            return done(Outcome.poison(ParkReason.UNPROCESSABLE, e));
        }
        catch (StateFencedException e) {
            return done(lostOwnership(e));
        }
        catch (StateUnavailableException e) {
            return done(Outcome.brokerAway(e, () -> apply(delivery, event)));
        }
        catch (VirtualMachineError e) {
            throw e;
        }
        catch (Exception | Error e) {
            // An Error from processor code (an assertion, a missing class) is a failed
            // apply like any other: it is
            // retried and parked on the last delivery, never left to the dispatcher.
            return done(Outcome.failed(e));
        }
        return confirm(delivery, applied, applied.stored());
    }

    /**
     * Waits for the state writes, then publishes the outputs and the elements parked on
     * their own and waits for their PubAcks. The state writes come first because they are
     * fenced by the server (each expects the bucket's last message): a superseded owner's
     * write is refused, and then none of that apply's outputs leaves (SPEC section 9,
     * fencing every effect).
     */
    private CompletionStage<Outcome> confirm(Delivery delivery, DeployedPipeline.Applied applied,
            CompletableFuture<Void> stored) {
        return stored.handle((ok, stateError) -> stateError).thenCompose(stateError -> {
            if (stateError != null) {
                return done(stored(unwrap(stateError), delivery, applied));
            }
            return publish(delivery, applied)
                .handle((ok, emitError) -> emitError == null ? Outcome.applied(applied.parked().size()) : published(
                        unwrap(emitError), () -> confirm(delivery, applied, CompletableFuture.completedFuture(null))));
        });
    }

    /** What a failed state write makes of the apply. */
    private Outcome stored(Throwable stateError, Delivery delivery, DeployedPipeline.Applied applied) {
        if (stateError instanceof StateFencedException fencedBy) {
            return lostOwnership(fencedBy);
        }
        if (stopped) {
            return Outcome.stopped(
                    "pipeline " + pipeline.name() + " stopped before its state was confirmed (" + stateError + ")");
        }
        return Outcome.failed(stateError);
    }

    /**
     * What a failed publish (an output, a parked element, a republish to another
     * partition) makes of the apply: the emitter's fence stops the pipeline; the broker
     * away (or ownership not provable after a pause) is waited out and the same publishes
     * made again; anything else is a failed apply.
     */
    private Outcome published(Throwable emitError, java.util.function.Supplier<CompletionStage<Outcome>> again) {
        if (emitError instanceof StateFencedException fencedBy) {
            return lostOwnership(fencedBy);
        }
        if (stopped) {
            return Outcome.stopped(
                    "pipeline " + pipeline.name() + " stopped before its outputs were confirmed (" + emitError + ")");
        }
        if (emitError instanceof StateUnavailableException
                || PublishException.classify(emitError) == PublishException.Kind.UNAVAILABLE) {
            return Outcome.brokerAway(emitError, again);
        }
        return Outcome.failed(emitError);
    }

    /**
     * Publishes the outputs and the parks of one apply; a failure to start one fails the
     * future. In the delivery's context: after state writes this runs on another thread,
     * and the outputs still continue the input's trace.
     */
    private CompletableFuture<Void> publish(Delivery delivery, DeployedPipeline.Applied applied) {
        return delivery.inContext(() -> {
            try {
                CompletableFuture<Void> emitted = emitter.emit(applied.outputs(), applied.keys(), delivery);
                return applied.parked().isEmpty() ? emitted
                        : CompletableFuture.allOf(emitted, parkElements(delivery, applied.parked()));
            }
            catch (RuntimeException e) {
                return CompletableFuture.<Void>failedFuture(e);
            }
        });
    }

    /**
     * Publishes the death envelopes of the elements parked on their own; completes on
     * every PubAck.
     */
    private CompletableFuture<Void> parkElements(Delivery delivery, List<DeployedPipeline.ParkedElement> parked) {
        CompletableFuture<?>[] published = new CompletableFuture<?>[parked.size()];
        for (int i = 0; i < parked.size(); i++) {
            DeployedPipeline.ParkedElement element = parked.get(i);
            published[i] = parker.parkElement(delivery, pipeline.name(), element.index(),
                    codec.encode(element.element()), element.reason());
        }
        return CompletableFuture.allOf(published);
    }

    private Outcome lostOwnership(StateFencedException reason) {
        stopped = true;
        ownership.lost(edge, reason);
        return Outcome.fenced(reason);
    }

    private static CompletionStage<Outcome> done(Outcome outcome) {
        return CompletableFuture.completedFuture(outcome);
    }

    private static CompletionStage<Outcome> stopped(String why) {
        return done(Outcome.stopped(why));
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

}
