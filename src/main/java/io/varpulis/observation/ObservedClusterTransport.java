package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.observation.NatsObservationDocumentation.SendKeys;
import io.varpulis.nats.Substrate;
import io.varpulis.support.DaemonThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryHandler;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link ClusterTransport} that observes every publish ({@code send}) and every delivery processed
 * ({@code process}) with Micrometer's Observation API (SPEC section 14), so Spring Boot's tracing bridge makes them
 * spans and its meter handler timers; heartbeats and state writes pass through unobserved.
 * <ul>
 * <li>A publish starts a producer observation (child of the current one: the delivery being processed, the HTTP
 * request of an API inject) whose propagation writes the trace headers into the message's NATS headers.</li>
 * <li>A delivery starts a consumer observation whose parent is read from its headers, current while the handler
 * runs, so what the handler publishes continues the trace; it ends when the delivery is acked, nak'ed or parked.</li>
 * <li>A park's envelope ({@code Nats-Msg-Id dlq:{stream}:{sequence}}) is published as the child of the failed
 * delivery's observation, so the DLQ message carries that delivery's trace headers, and the delivery's outcome
 * becomes {@code parked} with the envelope's reason once the DLQ has stored it.</li>
 * <li>A replay that carries {@link #PARKED_TRACEPARENT_HEADER} is sent under a span {@value #REPLAY_SPAN} linked to
 * the park's span in the parked trace (a real span link with OpenTelemetry; with Brave and Zipkin, which have no
 * links, the tags {@code links[0].traceId}/{@code links[0].spanId}), and both it and its send carry the tag
 * {@code varpulis.parked.trace.id}, which Zipkin can search.</li>
 * <li>A delivery's {@link io.varpulis.transport.Delivery#traceId()} is its process span's trace id, which the
 * parker writes into the death envelope ({@code trace_id}).</li>
 * </ul>
 */
public class ObservedClusterTransport implements ClusterTransport {

    /** The header a replay from the DLQ console carries: the {@code traceparent} of the delivery that parked it. */
    public static final String PARKED_TRACEPARENT_HEADER = "Varpulis-Parked-Traceparent";

    /** The name of the span a replay is sent under, linked to the trace that parked the event. */
    public static final String REPLAY_SPAN = "varpulis.dlq.replay";

    /** The header of a parked event's reason in the raw form (the JSON form has {@code "reason"}). */
    private static final String RAW_FORM_REASON = "Varpulis-Dlq-Reason";

    /** A JSON envelope's reason; quotes inside its payload are escaped, so they never match. */
    private static final Pattern JSON_REASON = Pattern.compile("\"reason\":\"([a-z_]+)\"");

    /**
     * Bytes kept free under max_payload for the trace headers ({@code traceparent} is 68 with its line,
     * {@code tracestate} and {@code baggage} vary): a message closer to the limit is published without them rather
     * than refused.
     */
    static final int TRACE_HEADER_RESERVE = 512;

    /**
     * How long a delivery may stay unsettled before its observation ends as {@code left}: a handler that gives a
     * delivery up (its pipeline stopped or fenced) leaves it for the server to redeliver and never settles it.
     * Longer than an ack_wait and a leader election, so a delivery waiting for the broker usually ends as it settles.
     */
    static final Duration UNSETTLED_LIMIT = Duration.ofMinutes(5);

    private final ClusterTransport delegate;
    private final ObservationRegistry registry;
    private final NatsSendObservationConvention sendConvention;
    private final NatsProcessObservationConvention processConvention;
    private final Traces traces;
    private final Map<String, ObservedDelivery> inFlight = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("varpulis-observation-sweep"));

    /**
     * @param delegate          the transport that publishes and consumes
     * @param registry          where observations are recorded
     * @param sendConvention    the application's convention for publishes, or {@code null} for the default
     * @param processConvention the application's convention for deliveries, or {@code null} for the default
     */
    public ObservedClusterTransport(ClusterTransport delegate, ObservationRegistry registry,
                                    NatsSendObservationConvention sendConvention,
                                    NatsProcessObservationConvention processConvention) {
        this(delegate, registry, sendConvention, processConvention, Traces.NONE);
    }

    /**
     * @param delegate          the transport that publishes and consumes
     * @param registry          where observations are recorded
     * @param sendConvention    the application's convention for publishes, or {@code null} for the default
     * @param processConvention the application's convention for deliveries, or {@code null} for the default
     * @param traces            the tracer behind the registry: trace ids for death envelopes, links for replays
     */
    public ObservedClusterTransport(ClusterTransport delegate, ObservationRegistry registry,
                                    NatsSendObservationConvention sendConvention,
                                    NatsProcessObservationConvention processConvention, Traces traces) {
        this.delegate = delegate;
        this.registry = registry;
        this.sendConvention = sendConvention;
        this.processConvention = processConvention;
        this.traces = traces;
        long every = UNSETTLED_LIMIT.toSeconds() / 5;
        sweeper.scheduleWithFixedDelay(this::endUnsettled, every, every, TimeUnit.SECONDS);
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
     * Publishes through the delegate inside a {@code send} observation, with the trace headers added.
     *
     * @param message the message
     * @return the delegate's receipt; the observation ends with it (with {@code error.type} when it failed)
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
        Observation observation = NatsObservationDocumentation.SEND.observation(sendConvention,
                DefaultNatsSendObservationConvention.INSTANCE, () -> context, registry);
        ObservedDelivery parking = parking(message.messageId());
        if (parking != null) {
            observation.parentObservation(parking.observation());
        }
        Traces.LinkedSpan replay = parkedTraceId == null ? Traces.LinkedSpan.NONE : traces.startLinked(REPLAY_SPAN,
                parkedTraceparent, Map.of(SendKeys.PARKED_TRACE_ID.asString(), parkedTraceId));
        try {
            observation.start();
        } finally {
            replay.closeScope();
        }
        OutboundMessage traced = context.traceHeaders().isEmpty() ? message
                : message.withHeaders(merged(message.headers(), context.traceHeaders()));
        CompletableFuture<PublishReceipt> receipt;
        try {
            receipt = delegate.publish(traced);
        } catch (RuntimeException e) {
            observation.error(e);
            observation.stop();
            replay.end(e);
            throw e;
        }
        return receipt.whenComplete((stored, error) -> {
            if (error != null) {
                observation.error(unwrap(error));
            } else if (parking != null && !isElement(message.messageId())) {
                parking.context().parked(reason(message));
            }
            observation.stop();
            replay.end(error == null ? null : unwrap(error));
        });
    }

    /**
     * Consumes through the delegate; each delivery is handed to the handler inside a {@code process} observation.
     *
     * @param consumer the consumer
     * @param handler  receives each delivery (a delivery that ends the observation when settled)
     * @return the delegate's consumption
     */
    @Override
    public Consumption consume(ConsumerDeclaration consumer, DeliveryHandler handler) {
        if (registry.isNoop() || Destinations.unobserved(consumer.filterSubject())) {
            return delegate.consume(consumer, handler);
        }
        return delegate.consume(consumer, delivery -> process(consumer, handler, delivery));
    }

    private void process(ConsumerDeclaration consumer, DeliveryHandler handler, Delivery delivery) {
        NatsProcessContext context = new NatsProcessContext(consumer, delivery);
        Observation observation = NatsObservationDocumentation.PROCESS.observation(processConvention,
                DefaultNatsProcessObservationConvention.INSTANCE, () -> context, registry).start();
        ObservedDelivery observed = new ObservedDelivery(delivery, observation, context, traces,
                ended -> inFlight.remove(ended.parkKey(), ended));
        inFlight.put(observed.parkKey(), observed);
        try (Observation.Scope scope = observation.openScope()) {
            handler.onDelivery(observed);
        } catch (RuntimeException | Error e) {
            // The transport naks the delivery it made when a handler throws.
            observed.end("nak", e);
            throw e;
        }
    }

    /** Ends, as {@code left}, the observations of deliveries no handler settled within the limit. */
    void endUnsettled() {
        long now = System.nanoTime();
        for (ObservedDelivery observed : inFlight.values()) {
            if (now - observed.startedNanos() > UNSETTLED_LIMIT.toNanos()) {
                observed.end("left", null);
            }
        }
    }

    /**
     * @return the deliveries being observed and not yet settled
     */
    int inFlight() {
        return inFlight.size();
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        delegate.close();
    }

    /**
     * @return the transport this one observes
     */
    public ClusterTransport delegate() {
        return delegate;
    }

    /** The delivery a park names by its message id {@code dlq:{stream}:{sequence}[:{element}]}, if observed here. */
    private ObservedDelivery parking(String messageId) {
        if (messageId == null || !messageId.startsWith("dlq:")) {
            return null;
        }
        String[] parts = messageId.split(":");
        return parts.length < 3 ? null : inFlight.get(parts[1] + ":" + parts[2]);
    }

    private static boolean isElement(String messageId) {
        return messageId.split(":").length > 3;
    }

    private static String reason(OutboundMessage envelope) {
        String raw = envelope.headers().get(RAW_FORM_REASON);
        if (raw != null) {
            return raw;
        }
        Matcher matcher = JSON_REASON.matcher(new String(envelope.data(), StandardCharsets.UTF_8));
        return matcher.find() ? matcher.group(1) : null;
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
     * @param traceparent a W3C {@code traceparent} ({@code 00-{trace id}-{span id}-{flags}}) or a single B3 header
     *                    ({@code {trace id}-{span id}-...}), or {@code null}
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
