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

import org.springframework.context.ApplicationEventPublisher;

import java.io.IOException;
import java.util.List;

/**
 * Makes the container of one {@link NatsListener} method: its settings from
 * {@link ListenerEndpoints}, the stream found on jetstream, and the durable pull consumer
 * declared with {@code varpulis.nats.jetstream.consumer.*}'s defaults (ack wait,
 * max_deliver 5, max_ack_pending, inactive threshold).
 */
public class NatsListenerContainerFactory {

    private final DeliveryContainerFactory containers;

    private final JetStreamAdmin admin;

    private final SubstrateMetrics metrics;

    private final NatsTemplate template;

    private final ListenerEndpoints endpoints;

    private final ApplicationEventPublisher events;

    /**
     * @param containers runs each listener's durable consumer (and gives the transport)
     * @param admin finds streams by subject and reads consumers, or {@code null} on core
     * @param metrics the meters of the event paths
     * @param template publishes replies
     * @param endpoints each listener's settings
     * @param events where each container's {@link NatsListenerEvent}s are published
     */
    public NatsListenerContainerFactory(DeliveryContainerFactory containers, JetStreamAdmin admin,
            SubstrateMetrics metrics, NatsTemplate template, ListenerEndpoints endpoints,
            ApplicationEventPublisher events) {
        this.containers = containers;
        this.admin = admin;
        this.metrics = metrics;
        this.template = template;
        this.endpoints = endpoints;
        this.events = events;
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
        ListenerEndpoint endpoint = endpoints.of(found);
        ConsumerSettings defaults = endpoints.defaults();
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
                metrics.deliveries(endpoint.id(), SubstrateMetrics.UNPARTITIONED, true), template, events, admin);
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
