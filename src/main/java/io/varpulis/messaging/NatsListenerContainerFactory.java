package io.varpulis.messaging;

import io.nats.client.JetStreamApiException;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Substrate;
import io.varpulis.messaging.NatsListenerAnnotationBeanPostProcessor.AnnotatedListener;

import io.varpulis.jetstream.NakBackOff;
import org.springframework.boot.convert.DurationStyle;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Makes the container of one {@link NatsListener} method: merges the annotation with
 * {@code varpulis.nats.listeners.<id>.*}, checks the result (errors name the method and
 * the property to set), finds the stream on jetstream, and declares the durable pull
 * consumer with {@code varpulis.nats.jetstream.consumer.*}'s defaults (ack wait,
 * max_deliver 5, max_ack_pending, inactive threshold).
 */
public class NatsListenerContainerFactory {

    private final DeliveryContainerFactory containers;

    private final JetStreamAdmin admin;

    private final SubstrateMetrics metrics;

    private final PayloadConverter converter;

    private final ConsumerSettings defaults;

    private final Map<String, ListenerSettings> listeners;

    private final ErrorHandlers errorHandlers;

    /**
     * @param containers runs each listener's durable consumer (and gives the transport)
     * @param admin finds streams by subject, or {@code null} on core
     * @param metrics the meters of the event paths
     * @param converter converts payloads
     * @param defaults the consumer defaults
     * @param listeners the overrides from {@code application.yml}, by listener id
     * @param errorHandlers the service's error handlers
     */
    public NatsListenerContainerFactory(DeliveryContainerFactory containers, JetStreamAdmin admin,
            SubstrateMetrics metrics, PayloadConverter converter, ConsumerSettings defaults,
            Map<String, ListenerSettings> listeners, ErrorHandlers errorHandlers) {
        this.containers = containers;
        this.admin = admin;
        this.metrics = metrics;
        this.converter = converter;
        this.defaults = defaults;
        this.listeners = listeners;
        this.errorHandlers = errorHandlers;
    }

    /**
     * The service's {@link NatsListenerErrorHandler}s.
     *
     * @param byName the bean of a name, for {@link NatsListener#errorHandler()} (throws
     * when there is none of that name and type)
     * @param global the one bean of the type, or {@code null}
     */
    public record ErrorHandlers(Function<String, NatsListenerErrorHandler> byName, NatsListenerErrorHandler global) {

        /** None. */
        public static final ErrorHandlers NONE = new ErrorHandlers(name -> {
            throw new IllegalStateException("no NatsListenerErrorHandler bean named " + name);
        }, null);

    }

    /**
     * @return the substrate the listeners consume on
     */
    public Substrate substrate() {
        return containers.transport().substrate();
    }

    /**
     * @param found an annotated method
     * @return its container, not started
     * @throws IllegalStateException naming the method and the setting, when the listener
     * is misconfigured or no single stream captures its subject
     */
    public NatsListenerContainer create(AnnotatedListener found) {
        ListenerEndpoint endpoint = endpoint(found);
        ConsumerConfiguration configuration = ConsumerConfiguration.builder()
            .durable(endpoint.id())
            .filterSubject(endpoint.subject())
            .deliverPolicy(DeliverPolicy.All)
            .ackPolicy(AckPolicy.Explicit)
            .ackWait(defaults.ackWait())
            .maxDeliver(endpoint.maxDeliver() > 0 ? endpoint.maxDeliver() : defaults.maxDeliver())
            .maxAckPending(endpoint.maxAckPending() > 0 ? endpoint.maxAckPending() : defaults.maxAckPending())
            .inactiveThreshold(defaults.inactiveThreshold())
            .build();
        return new NatsListenerContainer(endpoint, new ConsumerDeclaration(stream(endpoint), configuration), containers,
                metrics, converter);
    }

    private ListenerEndpoint endpoint(AnnotatedListener found) {
        NatsListener annotation = found.annotation();
        String id = annotation.id();
        String where = "@NatsListener(id = \"" + id + "\") on " + found.method().getDeclaringClass().getSimpleName()
                + "." + found.method().getName();
        if (!id.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalStateException(where + ": the id names the durable consumer and the DLQ subject, so it "
                    + "may only hold letters, digits, '-' and '_'");
        }
        ListenerSettings overrides = listeners.getOrDefault(id, ListenerSettings.NONE);
        String subject = overrides.subject() != null ? overrides.subject() : annotation.subject();
        if (subject.isBlank()) {
            throw new IllegalStateException(where + " has no subject: set subject = \"...\" or "
                    + "varpulis.nats.listeners." + id + ".subject");
        }
        int concurrency = overrides.concurrency() != null ? overrides.concurrency()
                : Math.max(annotation.concurrency(), 1);
        if (concurrency < 1) {
            throw new IllegalStateException(
                    "varpulis.nats.listeners." + id + ".concurrency must be 1 or more, got " + concurrency);
        }
        String sendTo = overrides.sendTo() != null ? overrides.sendTo() : annotation.sendTo();
        // A value returned without sendTo answers the request it came in (ReplyAddress).
        ListenerMethod method = ListenerMethod.of(found.bean(), found.method());
        List<Class<? extends Throwable>> notRetryable = Arrays.asList(annotation.notRetryable());
        return new ListenerEndpoint(id, subject, overrides.stream() != null ? overrides.stream() : annotation.stream(),
                concurrency, overrides.maxDeliver() != null ? overrides.maxDeliver() : annotation.maxDeliver(),
                overrides.maxAckPending() != null ? overrides.maxAckPending() : annotation.maxAckPending(), sendTo,
                notRetryable, backOff(where, annotation.backOff(), overrides.backOff()),
                overrides.applyTimeout() != null ? overrides.applyTimeout()
                        : duration(where, "applyTimeout", annotation.applyTimeout(), defaults.applyTimeout()),
                errorHandler(where, annotation.errorHandler()), method);
    }

    /**
     * The consumers' back-off, changed by the annotation's values, then by the
     * properties'.
     */
    private NakBackOff backOff(String where, NatsBackOff annotated, ListenerSettings.BackOff overrides) {
        NakBackOff base = defaults.nakBackOff();
        try {
            NakBackOff fromAnnotation = base.with(duration(where, "backOff.delay", annotated.delay(), null),
                    annotated.multiplier() > 0 ? annotated.multiplier() : null,
                    duration(where, "backOff.maxDelay", annotated.maxDelay(), null),
                    duration(where, "backOff.jitter", annotated.jitter(), null));
            return overrides.applyTo(fromAnnotation);
        }
        catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    where + ": its back-off is invalid (" + e.getMessage() + "); fix "
                            + "@NatsListener(backOff = @NatsBackOff(...)) or varpulis.nats.listeners.<id>.backoff.*",
                    e);
        }
    }

    private static Duration duration(String where, String attribute, String value, Duration otherwise) {
        if (value.isBlank()) {
            return otherwise;
        }
        try {
            return DurationStyle.detectAndParse(value.trim());
        }
        catch (IllegalArgumentException e) {
            throw new IllegalStateException(where + ": " + attribute + " = \"" + value + "\" is not a duration; "
                    + "write it as application.yml does (500ms, 30s, 5m, PT30S)", e);
        }
    }

    private NatsListenerErrorHandler errorHandler(String where, String beanName) {
        if (beanName.isBlank()) {
            return errorHandlers.global();
        }
        try {
            return errorHandlers.byName().apply(beanName);
        }
        catch (RuntimeException e) {
            throw new IllegalStateException(where + ": errorHandler = \"" + beanName + "\" names no "
                    + "NatsListenerErrorHandler bean; declare one with that name, or leave it empty for the "
                    + "service's one handler", e);
        }
    }

    /**
     * The configured stream, else the one stream whose subjects capture the filter
     * subject (jetstream only).
     */
    private String stream(ListenerEndpoint endpoint) {
        if (!endpoint.stream().isBlank() || admin == null) {
            return endpoint.stream();
        }
        List<String> names;
        try {
            names = admin.management().getStreamNames(endpoint.subject());
        }
        catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("listener " + endpoint.id() + ": cannot ask the server which stream "
                    + "captures " + endpoint.subject() + ": " + e.getMessage(), e);
        }
        if (names.size() != 1) {
            throw new IllegalStateException("listener " + endpoint.id() + ": "
                    + (names.isEmpty() ? "no stream" : "streams " + names) + " capture " + endpoint.subject()
                    + "; declare one under " + "varpulis.nats.jetstream.streams.<NAME>.subjects, or name it with "
                    + "varpulis.nats.listeners." + endpoint.id() + ".stream");
        }
        return names.get(0);
    }

}
