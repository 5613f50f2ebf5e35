package io.varpulis.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.nats.client.Message;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.Requester;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * A {@link Requester} observed (SPEC section 14), as Spring Kafka observes a send: each
 * request is a {@code send} observation (the child of the current one), from the request
 * until its reply, timeout or failure, whose trace headers the request carries, core or
 * stored alike; so the answering listener's {@code process} span is its child, and the
 * reply it publishes is in the same trace. Names and tags are those of every publish
 * ({@link NatsSendObservationConvention}); {@code error.type} says
 * {@code TimeoutException} for a reply that did not come in time.
 */
public class ObservedRequester implements Requester {

    private final Requester delegate;

    private final ObservationRegistry registry;

    private final NatsSendObservationConvention convention;

    /**
     * @param delegate the requester it observes
     * @param registry where observations are recorded
     * @param convention the application's convention for sends, or {@code null} for the
     * default
     */
    public ObservedRequester(Requester delegate, ObservationRegistry registry,
            NatsSendObservationConvention convention) {
        this.delegate = delegate;
        this.registry = registry;
        this.convention = convention;
    }

    @Override
    public CompletableFuture<Message> request(OutboundMessage request, Duration timeout) {
        return observe(registry, convention, request.subject(), request.messageId(), trace -> delegate
            .request(trace.isEmpty() ? request : request.withHeaders(merged(request, trace)), timeout));
    }

    @Override
    public void close() {
        delegate.close();
    }

    /**
     * @return the requester this one observes
     */
    public Requester delegate() {
        return delegate;
    }

    /**
     * Runs a request inside a {@code send} observation that ends with its reply.
     * @param registry where it is recorded
     * @param convention the application's convention, or {@code null}
     * @param subject the request's subject
     * @param messageId its {@code Nats-Msg-Id}, or {@code null}
     * @param request sends the request with the trace headers it is given
     * @param <T> the reply's type
     * @return the reply, completed once the observation stopped
     */
    static <T> CompletableFuture<T> observe(ObservationRegistry registry, NatsSendObservationConvention convention,
            String subject, String messageId, Function<Map<String, String>, CompletableFuture<T>> request) {
        if (registry.isNoop()) {
            return request.apply(Map.of());
        }
        NatsSendContext context = new NatsSendContext(subject, messageId, null, true);
        Observation observation = NatsObservationDocumentation.SEND
            .observation(convention, DefaultNatsSendObservationConvention.INSTANCE, () -> context, registry)
            .start();
        // The convention's key values are asked again when it stops, and only then built.
        context.running(true);
        CompletableFuture<T> reply;
        try {
            reply = request.apply(context.traceHeaders());
        }
        catch (RuntimeException e) {
            observation.error(e);
            observation.stop();
            throw e;
        }
        return reply.whenComplete((answer, error) -> {
            if (error != null) {
                observation
                    .error(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            }
            observation.stop();
        });
    }

    private static Map<String, String> merged(OutboundMessage request, Map<String, String> trace) {
        Map<String, String> all = new LinkedHashMap<>(request.headers());
        all.putAll(trace);
        return all;
    }

}
