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

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

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

    /**
     * @param containers runs each listener's durable consumer (and gives the transport)
     * @param admin finds streams by subject, or {@code null} on core
     * @param metrics the meters of the event paths
     * @param converter converts payloads
     * @param defaults the consumer defaults
     * @param listeners the overrides from {@code application.yml}, by listener id
     */
    public NatsListenerContainerFactory(DeliveryContainerFactory containers, JetStreamAdmin admin,
            SubstrateMetrics metrics, PayloadConverter converter, ConsumerSettings defaults,
            Map<String, ListenerSettings> listeners) {
        this.containers = containers;
        this.admin = admin;
        this.metrics = metrics;
        this.converter = converter;
        this.defaults = defaults;
        this.listeners = listeners;
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
        ListenerMethod method = ListenerMethod.of(found.bean(), found.method());
        if (method.returnsValue() && !method.returnsOutboundEvent() && sendTo.isBlank()) {
            throw new IllegalStateException(where + " returns a value but has no sendTo subject: set sendTo = "
                    + "\"...\" or varpulis.nats.listeners." + id + ".send-to, or return an OutboundEvent");
        }
        List<Class<? extends Throwable>> notRetryable = Arrays.asList(annotation.notRetryable());
        return new ListenerEndpoint(id, subject, overrides.stream() != null ? overrides.stream() : annotation.stream(),
                concurrency, overrides.maxDeliver() != null ? overrides.maxDeliver() : annotation.maxDeliver(),
                overrides.maxAckPending() != null ? overrides.maxAckPending() : annotation.maxAckPending(), sendTo,
                notRetryable, method);
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
