package io.varpulis.observation;

import io.varpulis.support.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.time.Duration;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.observation.NatsObservationDocumentation.SendKeys;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * A {@link ClusterTransport} that observes every publish ({@code send}) with Micrometer's
 * Observation API (SPEC section 14), so Spring Boot's tracing bridge makes them spans and
 * its meter handler timers; heartbeats and state writes pass through unobserved.
 * Deliveries are observed by the container that processes them
 * ({@link ObservedDeliveries}).
 * <ul>
 * <li>A publish starts a producer observation (child of the current one: the delivery
 * being processed, the HTTP request of an API inject, or, for a park's death envelope,
 * the failed delivery) whose propagation writes the trace headers into the message's NATS
 * headers; so a DLQ message carries its failed delivery's trace.</li>
 * <li>A replay that carries {@link #PARKED_TRACEPARENT_HEADER} is sent under a span
 * {@value #REPLAY_SPAN} linked to the park's span in the parked trace (a real span link
 * with OpenTelemetry; with Brave and Zipkin, which have no links, the tags
 * {@code links[0].traceId}/{@code links[0].spanId}), and both it and its send carry the
 * tag {@code varpulis.parked.trace.id}, which Zipkin can search.</li>
 * </ul>
 */
public class ObservedClusterTransport implements ClusterTransport {

    /**
     * The header a replay from the DLQ console carries: the {@code traceparent} of the
     * delivery that parked it.
     */
    public static final String PARKED_TRACEPARENT_HEADER = "Varpulis-Parked-Traceparent";

    /**
     * The name of the span a replay is sent under, linked to the trace that parked the
     * event.
     */
    public static final String REPLAY_SPAN = "varpulis.dlq.replay";

    /**
     * Bytes kept free under max_payload for the trace headers ({@code traceparent} is 68
     * with its line, {@code tracestate} and {@code baggage} vary): a message closer to
     * the limit is published without them rather than refused.
     */
    static final int TRACE_HEADER_RESERVE = 512;

    private static final Logger log = LoggerFactory.getLogger(ObservedClusterTransport.class);

    private final RateLimitedLog failures = new RateLimitedLog(Duration.ofMinutes(1));

    private final ClusterTransport delegate;

    private final ObservationRegistry registry;

    private final NatsSendObservationConvention sendConvention;

    private final NatsProcessObservationConvention processConvention;

    private final Traces traces;

    private final UntracedObservations untraced;

    /**
     * @param delegate the transport that publishes and consumes
     * @param registry where observations are recorded
     * @param sendConvention the application's convention for publishes, or {@code null}
     * for the default
     * @param processConvention the application's convention for deliveries, or
     * {@code null} for the default
     */
    public ObservedClusterTransport(ClusterTransport delegate, ObservationRegistry registry,
            NatsSendObservationConvention sendConvention, NatsProcessObservationConvention processConvention) {
        this(delegate, registry, sendConvention, processConvention, Traces.NONE);
    }

    /**
     * @param delegate the transport that publishes and consumes
     * @param registry where observations are recorded
     * @param sendConvention the application's convention for publishes, or {@code null}
     * for the default
     * @param processConvention the application's convention for deliveries, or
     * {@code null} for the default
     * @param traces the tracer behind the registry: trace ids for death envelopes, links
     * for replays
     */
    public ObservedClusterTransport(ClusterTransport delegate, ObservationRegistry registry,
            NatsSendObservationConvention sendConvention, NatsProcessObservationConvention processConvention,
            Traces traces) {
        this(delegate, registry, sendConvention, processConvention, traces, UntracedObservations.NONE);
    }

    /**
     * @param delegate the transport that publishes and consumes
     * @param registry where observations are recorded
     * @param sendConvention the application's convention for publishes, or {@code null}
     * for the default
     * @param processConvention the application's convention for deliveries, or
     * {@code null} for the default
     * @param traces the tracer behind the registry: trace ids for death envelopes, links
     * for replays, and a publish's sampling decided before its observation
     * @param untraced what times a publish whose trace is not sampled, or
     * {@link UntracedObservations#NONE} to observe it too
     */
    public ObservedClusterTransport(ClusterTransport delegate, ObservationRegistry registry,
            NatsSendObservationConvention sendConvention, NatsProcessObservationConvention processConvention,
            Traces traces, UntracedObservations untraced) {
        this.delegate = delegate;
        this.registry = registry;
        this.sendConvention = sendConvention;
        this.processConvention = processConvention;
        this.traces = traces;
        this.untraced = untraced;
    }

    @Override
    public Substrate substrate() {
        return delegate.substrate();
    }

    @Override
    public long maxPayload() {
        return delegate.maxPayload();
    }

    /**
     * Publishes through the delegate inside a {@code send} observation, with the trace
     * headers added; a publish whose trace is not sampled (made while an unsampled
     * delivery is processed, or a root the tracer sampled out) is only timed, without an
     * Observation ({@link UntracedObservations}), with the trace headers that say so.
     * @param message the message
     * @return the delegate's receipt; the observation (or the timer) ends with it, with
     * {@code error.type} when it failed
     */
    @Override
    public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
        if (registry.isNoop() || Destinations.unobserved(message.subject())) {
            return delegate.publish(message);
        }
        String parkedTraceparent = message.headers().get(PARKED_TRACEPARENT_HEADER);
        String parkedTraceId = traceId(parkedTraceparent);
        NatsSendContext context = new NatsSendContext(message.subject(), message.messageId(), parkedTraceId,
                fits(message));
        if (parkedTraceId == null && untraced.enabled() && traces.decides()) {
            return publishDecided(message, context);
        }
        return publishObserved(message, context, parkedTraceparent, parkedTraceId);
    }

    /**
     * Publishes the batch through the delegate, unobserved: only pipeline state writes
     * are batched, and they pass through unobserved.
     * @param messages the batch
     * @return the delegate's receipt
     */
    @Override
    public CompletableFuture<PublishReceipt> publishAtomically(List<OutboundMessage> messages) {
        return delegate.publishAtomically(messages);
    }

    /**
     * A publish whose sampling is known before any observation is built (issue 32): an
     * unsampled delivery's output carries its trace headers, unless an observation of its
     * processing is current; otherwise the tracer starts its span (the child of the
     * current observation), observed when it records and only timed when it does not.
     */
    private CompletableFuture<PublishReceipt> publishDecided(OutboundMessage message, NatsSendContext context) {
        ObservationConvention<NatsSendContext> convention = untraced.convention(context, sendConvention,
                DefaultNatsSendObservationConvention.INSTANCE);
        if (convention == null) {
            // Turned off by a predicate: as with a no-op observation, no trace header.
            return delegate.publish(message);
        }
        UntracedDelivery processing = UntracedDelivery.current();
        Observation current = registry.getCurrentObservation();
        if (processing != null && current == null) {
            context.carry(processing.carried());
        }
        else {
            // Outside a delivery, or inside an observation of its own (a sampled one an
            // unsampled delivery's processing started continues on this publish).
            context.setParentObservation(current);
            if (traces.decide(context) != Traces.Sampling.UNSAMPLED) {
                return publishObserved(message, context, null, null);
            }
        }
        context.running(true);
        try {
            untraced.start(context);
        }
        catch (RuntimeException e) {
            unobserved(message, e);
            return delegate.publish(message);
        }
        return send(message, context, error -> {
            if (error != null) {
                context.setError(error);
            }
            untraced.stop(context, convention);
        });
    }

    private CompletableFuture<PublishReceipt> publishObserved(OutboundMessage message, NatsSendContext context,
            String parkedTraceparent, String parkedTraceId) {
        Observation observation = NatsObservationDocumentation.SEND.observation(sendConvention,
                DefaultNatsSendObservationConvention.INSTANCE, () -> context, registry);
        if (observation.isNoop()) {
            // A predicate of the registry's own turned it off after the tracer started
            // its span.
            traces.abandon(context);
        }
        Traces.LinkedSpan replay = parkedTraceId == null ? Traces.LinkedSpan.NONE : traces.startLinked(REPLAY_SPAN,
                parkedTraceparent, Map.of(SendKeys.PARKED_TRACE_ID.asString(), parkedTraceId));
        try {
            observation.start();
            context.running(true);
        }
        catch (RuntimeException e) {
            unobserved(message, e);
            return delegate.publish(message);
        }
        finally {
            replay.closeScope();
        }
        return send(message, context, error -> {
            if (error != null) {
                observation.error(error);
            }
            observation.stop();
            replay.end(error);
        });
    }

    /**
     * Publishes with the context's trace headers added, and ends its observation (or
     * timer) with the receipt.
     */
    private CompletableFuture<PublishReceipt> send(OutboundMessage message, NatsSendContext context,
            Consumer<Throwable> end) {
        OutboundMessage traced = context.traceHeaders().isEmpty() ? message
                : message.withHeaders(message.headers().isEmpty() ? context.traceHeaders()
                        : merged(message.headers(), context.traceHeaders()));
        CompletableFuture<PublishReceipt> receipt;
        try {
            receipt = delegate.publish(traced);
        }
        catch (RuntimeException e) {
            end.accept(e);
            throw e;
        }
        return receipt.whenComplete((stored, error) -> {
            try {
                end.accept(error == null ? null : unwrap(error));
            }
            catch (RuntimeException e) {
                failures.warn(log, "the send observation of " + message.subject() + " threw when it ended (" + e
                        + "); the publish's outcome stands", e);
            }
        });
    }

    /**
     * An observation handler or convention threw when the publish's observation began: it
     * is published unobserved, and said so (at most once a minute).
     */
    private void unobserved(OutboundMessage message, RuntimeException error) {
        failures.warn(log, "the send observation of " + message.subject() + " threw when it began (" + error
                + "); published without it", error);
    }

    /**
     * Consumes through the delegate, unobserved: the container that processes each
     * delivery observes it ({@link ObservedDeliveries}).
     * @param consumer the consumer
     * @param handler receives each delivery
     * @return the delegate's consumption
     */
    @Override
    public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
        return delegate.consume(consumer, handler);
    }

    @Override
    public void close() {
        delegate.close();
    }

    /**
     * @return the transport this one observes
     */
    public ClusterTransport delegate() {
        return delegate;
    }

    private boolean fits(OutboundMessage message) {
        long maxPayload = delegate.maxPayload();
        if (maxPayload <= 0) {
            return true;
        }
        long bytes = message.data().length + (message.messageId() == null ? 0 : message.messageId().length() + 15);
        for (Map.Entry<String, String> header : message.headers().entrySet()) {
            bytes += header.getKey().length() + header.getValue().length() + 4;
        }
        return bytes + TRACE_HEADER_RESERVE <= maxPayload;
    }

    private static Map<String, String> merged(Map<String, String> headers, Map<String, String> trace) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.putAll(trace);
        return all;
    }

    /**
     * @param traceparent a W3C {@code traceparent} ({@code 00-{trace id}-{span
     * id}-{flags}}) or a single B3 header ({@code {trace id}-{span id}-...}), or
     * {@code null}
     * @return its trace id, or {@code null}
     */
    static String traceId(String traceparent) {
        if (traceparent == null || traceparent.isBlank()) {
            return null;
        }
        String[] parts = traceparent.trim().split("-");
        return parts.length == 4 && "00".equals(parts[0]) ? parts[1] : parts[0];
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

}
