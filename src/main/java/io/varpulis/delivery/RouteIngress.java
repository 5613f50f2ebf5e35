package io.varpulis.delivery;

import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsProperties;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.EventTypePattern;
import io.varpulis.pipeline.KeyValueState.StateFencedException;
import io.varpulis.pipeline.KeyValueState.StateUnavailableException;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.pipeline.UndecodableEventException;
import io.varpulis.pipeline.UnprocessableEventException;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.PublishException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The ingress loop of one pipeline on one route edge, the only place that decides ack, nak or park (ADR-007,
 * SPEC sections 4 and 9):
 * <ol>
 * <li>decode the payload; an undecodable one is parked on its first delivery;</li>
 * <li>check that the edge carries its event type; one it does not carry is parked at once ({@code unroutable});</li>
 * <li>apply it with the pipeline's processor (an {@link UnprocessableEventException} parks it at once), its state
 * writes staged and committed when the processor returns;</li>
 * <li>receive the PubAcks of the state writes, which the server refuses once a later placement opened the state;
 * then publish the outputs on the outgoing routes and receive their PubAcks (emit before ack: a crash between the
 * two would otherwise lose them; state before outputs: a superseded owner publishes nothing, SPEC section 9);</li>
 * <li>then, and only then, ack the input.</li>
 * </ol>
 * A failed apply, or an output the stream refused, naks with the nak delay (2 s); on the last delivery
 * (max_deliver) the event is parked, and the original acked only after the DLQ's PubAck (a failed park naks
 * instead). Poison is what fails to decode or apply.
 * <p>A broker that is briefly away is not poison: when the outputs or the state cannot be confirmed because the
 * broker is unavailable (no responders during an election, a PubAck timeout, a reconnect), a state read finds no
 * leader, or an event on the wrong partition cannot be republished to its key's partition, the ingress waits and
 * tries again (publishing the same outputs with the same {@code Nats-Msg-Id}s, or applying the event again on the
 * same state), backing off from 250 ms to 4 s, for as long as it takes. The delivery
 * is kept in progress meanwhile (an in-progress acknowledgement every third of ack_wait), so no delivery of its
 * max_deliver budget is spent on the broker's absence.
 * <p>When the state or the pipeline's {@link OwnershipFence} says another writer owns it
 * ({@link StateFencedException}: a refused state write, or a fence read after a pause of the process), the ingress
 * stops: it logs why at ERROR and counts it ({@code varpulis.state.fenced}) once per pipeline, tells its
 * {@link OwnershipListener} (the pipeline host stops the pipeline on this worker), and leaves the delivery and every
 * later one unacked for the rightful owner.
 * <p>A delivery that a stopped ingress (undeployed, moved, drained, fenced) cannot finish is never nak'ed or counted
 * as a failure: it is left unacked for wherever the pipeline runs next, or parked when it was its last delivery
 * (max_deliver), which the server would never redeliver.
 * <p>On core the same loop runs with ack as a no-op and nak and park logging the loss.
 */
public class RouteIngress implements DeliveryHandler {

    /** First wait before trying the broker again; doubles up to {@link #MAX_BROKER_WAIT}. */
    static final Duration FIRST_BROKER_WAIT = Duration.ofMillis(250);

    /** Longest wait between two tries while the broker is unavailable. */
    static final Duration MAX_BROKER_WAIT = Duration.ofSeconds(4);

    private static final Logger log = LoggerFactory.getLogger(RouteIngress.class);

    /** Runs nak, park and broker retries off the threads that completed a PubAck; threads are made on demand. */
    private static final Executor SETTLE = Executors.newCachedThreadPool(DaemonThreads.named("varpulis-settle"));

    private static final InProgressKeeper KEEPER = new InProgressKeeper();

    /** What a delivery settled on the spot returns: nothing is left to wait for. */
    private static final CompletableFuture<Void> SETTLED = CompletableFuture.completedFuture(null);

    private final RouteEdge edge;
    private final List<String> eventTypes;
    private final DeployedPipeline pipeline;
    private final OutputEmitter emitter;
    private final EventCodec codec;
    private final DeadLetterParker parker;
    private final SubstrateMetrics metrics;
    private final Duration nakDelay;
    private final OwnershipListener ownership;
    private final boolean everyEventType;
    private final InProgressKeeper.Slot applying = KEEPER.slot();
    private volatile SubstrateMetrics.Applies applies;
    private volatile OutputEmitter rerouter = OutputEmitter.NONE;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean fenced = new AtomicBoolean();
    private final Outage outage = new Outage();
    private volatile boolean stopped;

    /**
     * Told when the pipeline's state is owned by another writer.
     */
    @FunctionalInterface
    public interface OwnershipListener {

        /** Ignores it (the ingress still stops). */
        OwnershipListener NONE = (edge, reason) -> { };

        /**
         * @param edge   the edge whose ingress stopped
         * @param reason who owns the state now
         */
        void lost(RouteEdge edge, StateFencedException reason);
    }

    /**
     * @param edge       the route edge this ingress consumes; the consuming pipeline is {@code edge.to()}
     * @param eventTypes the event-type patterns the edge carries (its routes'); others are parked as unroutable
     * @param pipeline   the pipeline's processor and state
     * @param emitter    publishes the processor's outputs and confirms them
     * @param codec      decodes payloads
     * @param parker     parks poison, undecodable and unroutable events
     * @param metrics    counts applied, redelivered, retried and parked events
     * @param nakDelay   redelivery delay after a failed apply
     * @param ownership  told when another writer owns the pipeline's state
     */
    public RouteIngress(RouteEdge edge, List<String> eventTypes, DeployedPipeline pipeline, OutputEmitter emitter,
                        EventCodec codec, DeadLetterParker parker, SubstrateMetrics metrics, Duration nakDelay,
                        OwnershipListener ownership) {
        this.edge = edge;
        this.eventTypes = List.copyOf(eventTypes);
        this.pipeline = pipeline;
        this.emitter = emitter;
        this.codec = codec;
        this.parker = parker;
        this.metrics = metrics;
        this.nakDelay = nakDelay;
        this.ownership = ownership;
        this.everyEventType = this.eventTypes.contains("*");
    }

    /**
     * Starts consuming the edge with the pipeline's durable consumer ({@code route_{pipeline}__{subject}}).
     *
     * @param transport the transport
     * @param settings  the consumer settings (ack_wait, max_deliver, ...)
     * @return the running consumption
     */
    public Consumption start(ClusterTransport transport, NatsProperties.Consumer settings) {
        // The pipeline's meters exist (at 0) before its first delivery: rate() then sees a first event that is parked.
        applies = metrics.applies(pipeline.name(), pipeline.partitionTag());
        return transport.consume(VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(), settings), this);
    }

    /**
     * Stops working: deliveries waiting for the broker are given up (left unacked, so the server redelivers them to
     * wherever the pipeline runs next), and later deliveries are left alone. Idempotent.
     */
    public void stop() {
        stopped = true;
    }

    /**
     * Sets where an ingress of one partition sends an event whose key belongs to another partition (published there
     * by hand, or before the pipeline's partition count changed): an emitter along this edge's routes, which puts it
     * on its key's partition. Without one such an event is parked ({@code unroutable}).
     *
     * @param emitter the emitter, usually {@link RouteEmitter#of} on the routes of this edge
     * @return this ingress
     */
    public RouteIngress reroutingTo(OutputEmitter emitter) {
        this.rerouter = emitter;
        return this;
    }

    /**
     * @return the edge this ingress consumes
     */
    public RouteEdge edge() {
        return edge;
    }

    /**
     * @return deliveries received and not yet acked, nak'ed, parked or given up (for a graceful drain)
     */
    public int inFlight() {
        return inFlight.get();
    }

    /**
     * {@inheritDoc}
     * <p>The delivery is kept in progress from here until it is settled or given up: in this ingress's slot while it
     * is applied, then, when it still waits for its outputs, state writes or the broker, in the keeper's queue. A
     * delivery settled by the time its apply returned (no outputs, or outputs already confirmed) allocates no future
     * or queue node (issue 14, item 3).
     */
    @Override
    public void onDelivery(Delivery delivery) {
        inFlight.incrementAndGet();
        boolean inSlot = applying.begin(delivery);
        InProgressKeeper.Tracked kept = inSlot ? null : KEEPER.track(delivery);
        CompletableFuture<Void> settled;
        try {
            settled = apply(delivery);
        } catch (RuntimeException | Error e) {
            if (inSlot) {
                applying.end();
            } else {
                kept.done();
            }
            inFlight.decrementAndGet();
            throw e;
        }
        if (inSlot) {
            long since = applying.end();
            if (!settled.isDone()) {
                kept = KEEPER.track(delivery, since);
            }
        }
        if (settled.isDone()) {
            if (kept != null) {
                kept.done();
            }
            inFlight.decrementAndGet();
            return;
        }
        InProgressKeeper.Tracked waiting = kept;
        settled.whenComplete((ok, error) -> {
            waiting.done();
            inFlight.decrementAndGet();
        });
    }

    private CompletableFuture<Void> apply(Delivery delivery) {
        if (stopped) {
            return leftForNextOwner(delivery, "pipeline " + pipeline.name() + " stopped on this worker");
        }
        if (delivery.attempt() > 1) {
            metrics.redelivered(pipeline.name(), pipeline.partitionTag());
        }
        Event event;
        try {
            event = codec.decode(delivery.data());
        } catch (UndecodableEventException e) {
            return parker.park(delivery, pipeline.name(), ParkReason.UNDECODABLE, e);
        }
        if (!carries(event.eventType())) {
            return parker.park(delivery, pipeline.name(), ParkReason.UNROUTABLE,
                    new UnroutableEventException(event.eventType(), edge, eventTypes));
        }
        if (edge.isPartition() && pipeline.partitioning().isPresent()) {
            CompletableFuture<Void> parked = parkOffPartition(delivery, event, pipeline.partitioning().get());
            if (parked != null) {
                return parked;
            }
        }
        return apply(delivery, event, new Waiting(System.nanoTime()));
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
     * A partition applies only the keys it owns (SPEC section 11): an event without a text key is parked as
     * {@code unprocessable}; one whose key picks another partition (a publisher that hashed with another partition
     * count, or an event stored before the count changed) is republished to that partition and acked after its
     * PubAck (emit before ack), since applying it here would split its key's state over two partitions. It never
     * loops: the partition it goes to owns its key.
     *
     * @return the park or the reroute, or {@code null} when the event belongs here
     */
    private CompletableFuture<Void> parkOffPartition(Delivery delivery, Event event, Partitioning partitioning) {
        int owner;
        try {
            owner = partitioning.partitionOf(event);
        } catch (UnprocessableEventException e) {
            return parker.park(delivery, pipeline.name(), ParkReason.UNPROCESSABLE, e);
        }
        if (owner == edge.partition()) {
            return null;
        }
        if (rerouter != OutputEmitter.NONE) {
            log.info("{}: key {} belongs to partition {} of {}, not {}; republished there", delivery,
                    partitioning.key(), owner, partitioning.partitions(), edge.partition());
            return reroute(delivery, event, new Waiting(System.nanoTime()));
        }
        return parker.park(delivery, pipeline.name(), ParkReason.UNROUTABLE, new IllegalArgumentException("event "
                + "with " + partitioning.key() + " '" + event.fields().get(partitioning.key()) + "' belongs to "
                + "partition " + owner + " of " + partitioning.partitions() + " but came on " + edge.subject()
                + ": publish to the unpartitioned subject " + new RouteEdge(edge.group(), edge.from(), edge.to())
                .subject() + " and the pipeline partitions it"));
    }

    /**
     * Republishes an event to its key's partition and acks it after the PubAck; a broker that is away (no
     * responders, PubAck timeout, ownership not provable after a pause) is waited for like an output's (SPEC section
     * 9), a later placement's fence stops the pipeline here as in {@link #settle}, any other refusal is a failed
     * delivery.
     */
    private CompletableFuture<Void> reroute(Delivery delivery, Event event, Waiting waiting) {
        CompletableFuture<Void> emitted;
        try {
            emitted = rerouter.emit(List.of(event), delivery);
        } catch (RuntimeException e) {
            emitted = CompletableFuture.failedFuture(e);
        }
        return emitted.handle((ok, error) -> {
            if (error == null) {
                delivery.ack();
                if (waiting.tries > 0) {
                    outage.recovered();
                }
                return CompletableFuture.<Void>completedFuture(null);
            }
            Throwable cause = unwrap(error);
            return CompletableFuture.supplyAsync(() -> {
                if (cause instanceof StateFencedException fencedBy) {
                    // The emitter's fence: a later placement owns the pipeline.
                    return lostOwnership(delivery, fencedBy);
                }
                if (stopped) {
                    return leftForNextOwner(delivery, "pipeline " + pipeline.name() + " stopped before the republish"
                            + " to its key's partition was confirmed (" + cause + ")");
                }
                // Ownership not provable after a pause is the broker being away too: waited for, never a nak.
                return cause instanceof StateUnavailableException
                        || PublishException.classify(cause) == PublishException.Kind.UNAVAILABLE
                        ? brokerWait(delivery, waiting, cause, () -> reroute(delivery, event, waiting))
                        : failed(delivery, cause);
            }, SETTLE).thenCompose(settled -> settled);
        }).thenCompose(settled -> settled);
    }

    private CompletableFuture<Void> apply(Delivery delivery, Event event, Waiting waiting) {
        DeployedPipeline.Applied applied;
        try {
            applied = pipeline.apply(event, delivery);
        } catch (UnprocessableEventException e) {
            return parker.park(delivery, pipeline.name(), ParkReason.UNPROCESSABLE, e);
        } catch (StateFencedException e) {
            return lostOwnership(delivery, e);
        } catch (StateUnavailableException e) {
            return brokerWait(delivery, waiting, e, () -> apply(delivery, event, waiting));
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Exception | Error e) {
            // An Error from processor code (an assertion, a missing class) is a failed apply like any other: it is
            // retried and parked on the last delivery, never left to the dispatcher.
            return failed(delivery, e);
        }
        return confirm(delivery, applied.outputs(), applied.keys(), applied.parked(), applied.stored(), waiting);
    }

    /**
     * Waits for the state writes, then publishes the outputs and the elements parked on their own and waits for
     * their PubAcks, then acks; a broker that is away is waited for. The state writes come first because they are
     * fenced by the server (each expects the bucket's last message): a superseded owner's write is refused, and then
     * none of that apply's outputs leaves (SPEC section 9, fencing every effect).
     */
    private CompletableFuture<Void> confirm(Delivery delivery, List<Event> outputs, List<String> keys,
                                            List<DeployedPipeline.ParkedElement> parked,
                                            CompletableFuture<Void> stored, Waiting waiting) {
        CompletableFuture<Void> emitted = succeeded(stored) ? publish(delivery, outputs, keys, parked)
                : stored.thenComposeAsync(ok -> publish(delivery, outputs, keys, parked), SETTLE);
        if (succeeded(emitted) && succeeded(stored)) {
            // Everything is confirmed already (no outputs, no state writes pending): ack on the spot. An ack that
            // cannot be sent (connection closed) fails the future, as on the path below, for ack_wait to redeliver.
            try {
                acked(delivery, parked, waiting);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            return SETTLED;
        }
        CompletableFuture<Throwable> storedOutcome = stored.handle((ok, error) -> unwrap(error));
        return emitted.handle((ok, error) -> unwrap(error)).thenCombine(storedOutcome, Outcome::new)
                .thenCompose(outcome -> {
                    if (outcome.succeeded()) {
                        acked(delivery, parked, waiting);
                        return SETTLED;
                    }
                    // Off the thread that completed the PubAck (jnats' reply dispatcher or the PubAck deadline
                    // sweeper): a park publishes and may wait for a window slot, which only that thread could free.
                    return CompletableFuture.supplyAsync(() -> settle(delivery, outputs, keys, parked, outcome,
                                    waiting), SETTLE)
                            .thenCompose(settled -> settled);
                });
    }

    /**
     * Publishes the outputs and the parks of one apply; a failure to start one fails the future. In the delivery's
     * context: after state writes this runs on another thread, and the outputs still continue the input's trace.
     */
    private CompletableFuture<Void> publish(Delivery delivery, List<Event> outputs, List<String> keys,
                                            List<DeployedPipeline.ParkedElement> parked) {
        return delivery.inContext(() -> {
            try {
                CompletableFuture<Void> emitted = emitter.emit(outputs, keys, delivery);
                return parked.isEmpty() ? emitted : CompletableFuture.allOf(emitted, parkElements(delivery, parked));
            } catch (RuntimeException e) {
                return CompletableFuture.<Void>failedFuture(e);
            }
        });
    }

    private static boolean succeeded(CompletableFuture<Void> future) {
        return future.isDone() && !future.isCompletedExceptionally();
    }

    /** Acks an applied delivery whose outputs, parks and state writes are confirmed, and counts it. */
    private void acked(Delivery delivery, List<DeployedPipeline.ParkedElement> parked, Waiting waiting) {
        delivery.ack();
        for (int i = 0; i < parked.size(); i++) {
            metrics.parked(pipeline.name(), ParkReason.UNPROCESSABLE.tag());
        }
        SubstrateMetrics.Applies meters = applies;
        if (meters == null) {
            meters = metrics.applies(pipeline.name(), pipeline.partitionTag());
            applies = meters;
        }
        meters.applied(System.nanoTime() - waiting.started);
        if (waiting.tries > 0) {
            outage.recovered();
        }
    }

    private CompletableFuture<Void> settle(Delivery delivery, List<Event> outputs, List<String> keys,
                                           List<DeployedPipeline.ParkedElement> parked, Outcome outcome,
                                           Waiting waiting) {
        if (outcome.stateError() instanceof StateFencedException fencedBy) {
            return lostOwnership(delivery, fencedBy);
        }
        if (outcome.emitError() instanceof StateFencedException fencedBy) {
            // The emitter's fence: superseded after the state writes were stored (a pause, an ownership check).
            return lostOwnership(delivery, fencedBy);
        }
        if (stopped) {
            // Undeployed, moved or drained meanwhile (its state closed under it): not a failure of the event.
            return leftForNextOwner(delivery, "pipeline " + pipeline.name() + " stopped before its outputs and "
                    + "state were confirmed (" + (outcome.stateError() != null ? outcome.stateError()
                    : outcome.emitError()) + ")");
        }
        if (outcome.stateError() != null) {
            return failed(delivery, outcome.stateError());
        }
        Throwable emitError = outcome.emitError();
        if (emitError instanceof StateUnavailableException
                || PublishException.classify(emitError) == PublishException.Kind.UNAVAILABLE) {
            // The state is stored; only the outputs and parks are published again, with the same message ids.
            return brokerWait(delivery, waiting, emitError,
                    () -> confirm(delivery, outputs, keys, parked, CompletableFuture.completedFuture(null), waiting));
        }
        return failed(delivery, emitError);
    }

    /** Publishes the death envelopes of the elements parked on their own; completes on every PubAck. */
    private CompletableFuture<Void> parkElements(Delivery delivery, List<DeployedPipeline.ParkedElement> parked) {
        CompletableFuture<?>[] published = new CompletableFuture<?>[parked.size()];
        for (int i = 0; i < parked.size(); i++) {
            DeployedPipeline.ParkedElement element = parked.get(i);
            published[i] = parker.parkElement(delivery, pipeline.name(), element.index(),
                    codec.encode(element.element()), element.reason());
        }
        return CompletableFuture.allOf(published);
    }

    private CompletableFuture<Void> brokerWait(Delivery delivery, Waiting waiting, Throwable error,
                                               Supplier<CompletableFuture<Void>> again) {
        if (stopped) {
            log.info("{}: pipeline {} stopped while waiting for the broker; left unacked for redelivery", delivery,
                    pipeline.name());
            return leftForNextOwner(delivery, "pipeline " + pipeline.name() + " stopped while waiting for the broker ("
                    + error + ")");
        }
        waiting.tries++;
        metrics.retried(pipeline.name(), pipeline.partitionTag());
        outage.waiting(delivery, error);
        long delay = waiting.nextDelayMillis();
        return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(delay,
                        TimeUnit.MILLISECONDS, SETTLE))
                .thenCompose(ignored -> stopped ? CompletableFuture.<Void>completedFuture(null) : again.get());
    }

    private CompletableFuture<Void> lostOwnership(Delivery delivery, StateFencedException reason) {
        stopped = true;
        if (fenced.compareAndSet(false, true)) {
            superseded(pipeline, reason, metrics);
            ownership.lost(edge, reason);
        }
        log.debug("{} left unacked: the pipeline's state belongs to another writer", delivery);
        return leftForNextOwner(delivery, reason.getMessage());
    }

    /**
     * Says once per pipeline, at ERROR, that it stops on this worker because a later placement owns it, and counts it
     * ({@code varpulis.state.fenced{pipeline,partition}}, the meter OPERATING.md's alert watches).
     *
     * @param pipeline the superseded pipeline
     * @param reason   who owns it now
     * @param metrics  the meters
     */
    static void superseded(DeployedPipeline pipeline, StateFencedException reason, SubstrateMetrics metrics) {
        if (pipeline.fence().supersede(reason)) {
            log.error("pipeline {}/{} (placement epoch {}) stops consuming on this worker before any further "
                            + "effect: {}. Nothing to do here: its unacked events stay in the stream for the worker "
                            + "that owns it now; if this repeats, look for long pauses of this process (GC, a frozen "
                            + "VM) or a slow network to NATS.", pipeline.group(), pipeline.name(),
                    pipeline.fence().epoch(), reason.getMessage());
            metrics.fenced(pipeline.name(), pipeline.partitionTag());
        }
    }

    /**
     * Leaves a delivery this ingress can no longer finish (stopped, fenced) unacked, for the server to redeliver to
     * wherever the pipeline runs next; on its last delivery (max_deliver) the server never would, so it is parked
     * instead, to be replayed, never dropped without a trace.
     */
    private CompletableFuture<Void> leftForNextOwner(Delivery delivery, String why) {
        if (delivery.isLastAttempt()) {
            return parker.park(delivery, pipeline.name(), ParkReason.MAX_DELIVER, new IllegalStateException(
                    "its last delivery could not be finished here: " + why));
        }
        return CompletableFuture.completedFuture(null);
    }

    private CompletableFuture<Void> failed(Delivery delivery, Throwable error) {
        if (stopped || !pipeline.fence().trusted()) {
            // Stopped meanwhile (the fence refuses every effect once the pipeline stops): not a failure of the event.
            return leftForNextOwner(delivery, "pipeline " + pipeline.name() + " stopped on this worker (" + error
                    + ")");
        }
        if (delivery.isLastAttempt()) {
            return parker.park(delivery, pipeline.name(), ParkReason.MAX_DELIVER, error);
        }
        log.warn("{} failed in pipeline {} ({}); nak'ed, redelivery in {} ms", delivery, pipeline.name(),
                error.toString(), nakDelay.toMillis());
        delivery.nak(nakDelay);
        return CompletableFuture.completedFuture(null);
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** What the confirmation of one apply met. */
    private record Outcome(Throwable emitError, Throwable stateError) {
        boolean succeeded() {
            return emitError == null && stateError == null;
        }
    }

    /** One delivery's retries while the broker is away. */
    private static final class Waiting {
        private final long started;
        private int tries;
        private long delayMillis = FIRST_BROKER_WAIT.toMillis();

        private Waiting(long started) {
            this.started = started;
        }

        private long nextDelayMillis() {
            long delay = delayMillis;
            delayMillis = Math.min(MAX_BROKER_WAIT.toMillis(), delayMillis * 2);
            return delay;
        }
    }

    /** One WARN when deliveries start waiting for the broker, one INFO when they get through again. */
    private final class Outage {
        private final AtomicLong since = new AtomicLong();
        private final AtomicLong retries = new AtomicLong();

        private void waiting(Delivery delivery, Throwable error) {
            retries.incrementAndGet();
            if (since.compareAndSet(0, System.nanoTime())) {
                log.warn("pipeline {} on {}: the broker is unavailable ({}); waiting and trying again every {} to {} "
                                + "ms, deliveries kept in progress (no delivery of max_deliver is spent); first: {}",
                        pipeline.name(), edge.name(), error.getMessage(), FIRST_BROKER_WAIT.toMillis(),
                        MAX_BROKER_WAIT.toMillis(), delivery);
            }
        }

        private void recovered() {
            long started = since.getAndSet(0);
            if (started != 0) {
                log.info("pipeline {} on {}: the broker answers again after {} ms; {} tries waited for it", pipeline
                        .name(), edge.name(), (System.nanoTime() - started) / 1_000_000, retries.getAndSet(0));
            }
        }
    }
}
