package io.varpulis.delivery;

import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.NatsProperties;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.ProcessingContext;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.pipeline.UndecodableEventException;
import io.varpulis.pipeline.UnprocessableEventException;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ingress loop of one pipeline on one route edge, the only place that decides ack, nak or park (ADR-007,
 * SPEC section 4):
 * <ol>
 * <li>decode the payload; an undecodable one is parked on its first delivery;</li>
 * <li>apply it with the pipeline's processor (an {@link UnprocessableEventException} parks it at once);</li>
 * <li>publish the outputs on the outgoing routes and receive their PubAcks (emit before ack: a crash between the
 * two would otherwise lose the outputs);</li>
 * <li>then, and only then, ack the input.</li>
 * </ol>
 * A failed apply or output publish naks with the nak delay (2 s); on the last delivery (max_deliver) the event is
 * parked, and the original acked only after the DLQ's PubAck (a failed park naks instead).
 * <p>On core the same loop runs with ack as a no-op and nak and park logging the loss.
 */
public class RouteIngress implements DeliveryHandler {

    private static final Logger log = LoggerFactory.getLogger(RouteIngress.class);

    private final RouteEdge edge;
    private final EventProcessor processor;
    private final OutputEmitter emitter;
    private final KeyValueState state;
    private final EventCodec codec;
    private final DeadLetterParker parker;
    private final SubstrateMetrics metrics;
    private final Duration nakDelay;
    private final AtomicInteger inFlight = new AtomicInteger();

    /** Runs nak and park after an output was not confirmed; rare, so threads are made on demand. */
    private static final Executor SETTLE = Executors.newCachedThreadPool(DaemonThreads.named("varpulis-settle"));

    /**
     * @param edge      the route edge this ingress consumes; the consuming pipeline is {@code edge.to()}
     * @param processor the pipeline's processor
     * @param emitter   publishes the processor's outputs and confirms them
     * @param state     the pipeline's durable state, handed to the processor
     * @param codec     decodes payloads
     * @param parker    parks poison and undecodable events
     * @param metrics   counts applied, redelivered and parked events
     * @param nakDelay  redelivery delay after a failed apply
     */
    public RouteIngress(RouteEdge edge, EventProcessor processor, OutputEmitter emitter, KeyValueState state,
                        EventCodec codec, DeadLetterParker parker, SubstrateMetrics metrics, Duration nakDelay) {
        this.edge = edge;
        this.processor = processor;
        this.emitter = emitter;
        this.state = state;
        this.codec = codec;
        this.parker = parker;
        this.metrics = metrics;
        this.nakDelay = nakDelay;
    }

    /**
     * Starts consuming the edge with the pipeline's durable consumer ({@code route_{pipeline}__{subject}}).
     *
     * @param transport the transport
     * @param settings  the consumer settings (ack_wait, max_deliver, ...)
     * @return the running consumption
     */
    public Consumption start(ClusterTransport transport, NatsProperties.Consumer settings) {
        return transport.consume(VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(), settings), this);
    }

    /**
     * @return the edge this ingress consumes
     */
    public RouteEdge edge() {
        return edge;
    }

    /**
     * @return deliveries received and not yet acked, nak'ed or parked (for a graceful drain)
     */
    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public void onDelivery(Delivery delivery) {
        inFlight.incrementAndGet();
        try {
            apply(delivery).whenComplete((ok, error) -> inFlight.decrementAndGet());
        } catch (RuntimeException | Error e) {
            inFlight.decrementAndGet();
            throw e;
        }
    }

    private CompletableFuture<Void> apply(Delivery delivery) {
        String pipeline = edge.to();
        if (delivery.attempt() > 1) {
            metrics.redelivered(pipeline);
        }
        Event event;
        try {
            event = codec.decode(delivery.data());
        } catch (UndecodableEventException e) {
            return parker.park(delivery, pipeline, ParkReason.UNDECODABLE, e);
        }
        long started = System.nanoTime();
        List<Event> outputs;
        try {
            outputs = processor.process(event, context(delivery));
        } catch (UnprocessableEventException e) {
            return parker.park(delivery, pipeline, ParkReason.UNPROCESSABLE, e);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Exception | Error e) {
            // An Error from processor code (an assertion, a missing class) is a failed apply like any other: it is
            // retried and parked on the last delivery, never left to the dispatcher.
            return failed(delivery, e);
        }
        CompletableFuture<Void> confirmed;
        try {
            confirmed = emitter.emit(outputs == null ? List.of() : outputs, delivery);
        } catch (RuntimeException e) {
            confirmed = CompletableFuture.failedFuture(e);
        }
        return confirmed.handle((ok, error) -> error).thenCompose(error -> {
            if (error != null) {
                // Off the thread that completed the PubAck (jnats' reply dispatcher or the PubAck deadline sweeper): a
                // park publishes and may wait for a window slot, which only that thread could free.
                return CompletableFuture.supplyAsync(() -> failed(delivery, error), SETTLE)
                        .thenCompose(settled -> settled);
            }
            delivery.ack();
            metrics.applied(pipeline, Duration.ofNanos(System.nanoTime() - started));
            return CompletableFuture.completedFuture(null);
        });
    }

    private CompletableFuture<Void> failed(Delivery delivery, Throwable error) {
        if (delivery.isLastAttempt()) {
            return parker.park(delivery, edge.to(), ParkReason.MAX_DELIVER, error);
        }
        log.warn("{} failed in pipeline {} ({}); nak'ed, redelivery in {} ms", delivery, edge.to(),
                error.toString(), nakDelay.toMillis());
        delivery.nak(nakDelay);
        return CompletableFuture.completedFuture(null);
    }

    private ProcessingContext context(Delivery delivery) {
        return new DeliveryContext(edge.group(), edge.to(), delivery.messageId(), delivery.attempt(), state);
    }

    private record DeliveryContext(String group, String pipeline, String messageId, long attempt,
                                   KeyValueState state) implements ProcessingContext {
    }
}
