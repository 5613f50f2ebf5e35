package io.varpulis.bench;

import io.varpulis.container.ContainerSettings;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.messaging.NatsListener;
import io.varpulis.messaging.NatsListenerAnnotationBeanPostProcessor;
import io.varpulis.messaging.NatsListenerContainerFactory;
import io.varpulis.messaging.ListenerEndpoints;
import io.varpulis.messaging.ListenerMethods;
import io.varpulis.messaging.ListenerSettings;
import io.varpulis.messaging.NatsListenerEndpointRegistry;
import io.varpulis.messaging.NatsTemplate;
import io.varpulis.messaging.PayloadConverter;
import io.varpulis.test.NatsTestProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.observation.ObservedClusterTransport;
import io.varpulis.observation.ObservedDeliveries;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.DeliveryDecorator;
import io.varpulis.transport.ForwardingDelivery;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * A service's own listener (SPEC section 13, issue 22): a {@link NatsTemplate} publishes
 * each event, and a {@link NatsListener} method consumes it through the library's
 * container exactly as Spring starts it (the annotation post-processor finds the method,
 * {@link NatsListenerContainerFactory} declares the durable pull consumer with ADR-007's
 * defaults, {@link NatsListenerEndpointRegistry} starts it): each payload converted with
 * Jackson 2 into a record, the method called, then the ack. The Spring context itself is
 * left out: it is not on the hop. The template is handed the prepared bytes (a
 * {@code byte[]} payload is published as it is), as the other clients publish prepared
 * bytes.
 * <p>
 * Observed (issue 32): the template's and the container's transports wrapped in the
 * {@link ObservedClusterTransport} and every delivery in the process observation
 * ({@link ObservedDeliveries}) that {@code varpulis.nats.observation-enabled=true} adds,
 * observing with {@link BenchTracing} at the given sampling.
 */
final class ListenerHopClient implements HopClient {

    /** The listener's id, hence its durable consumer's name. */
    static final String ID = "bench_listener";

    private final SubstrateFixture publisher;

    private final SubstrateFixture worker;

    private final NatsTemplate template;

    private final PayloadConverter converter = new PayloadConverter(JsonMapper.builder().findAndAddModules().build());

    private final BenchTracing tracing;

    private final ClusterTransport consuming;

    private final DeliveryDecorator observed;

    private final String name;

    private NatsListenerEndpointRegistry registry;

    private DeliveryContainerFactory containers;

    ListenerHopClient(String url) throws Exception {
        this(url, Float.NaN);
    }

    /**
     * @param sampling the observation's sampling probability (0 to 1), or NaN for no
     * observation (the default)
     */
    ListenerHopClient(String url, float sampling) throws Exception {
        this.publisher = SubstrateFixture.connect(url, Substrate.JETSTREAM, new NatsTestProperties());
        this.worker = SubstrateFixture.connect(url, Substrate.JETSTREAM, new NatsTestProperties());
        if (Float.isNaN(sampling)) {
            tracing = null;
            template = new NatsTemplate(publisher.transport, converter);
            consuming = worker.transport;
            observed = DeliveryDecorator.NONE;
            name = "listener";
        }
        else {
            tracing = new BenchTracing(sampling);
            template = new NatsTemplate(new ObservedClusterTransport(publisher.transport, tracing.registry(), null,
                    null, tracing.traces(), tracing.untraced()), converter);
            consuming = new ObservedClusterTransport(worker.transport, tracing.registry(), null, null, tracing.traces(),
                    tracing.untraced());
            observed = new ObservedDeliveries(tracing.registry(), null, tracing.traces(), tracing.untraced());
            name = "listener, observed " + Math.round(sampling * 100) + " %";
        }
    }

    /** An SPEC section 6 event as a service would read it: a record. */
    record SshEvent(@JsonProperty("event_type") String eventType, Instant timestamp, Map<String, String> fields) {
    }

    private static final ObjectReader RECORDS = JsonMapper.builder()
        .findAndAddModules()
        .build()
        .readerFor(SshEvent.class);

    /**
     * What the listener does with a payload, by hand: the baseline of the listener's hop
     * (issue 34).
     * @param payload an event's JSON
     */
    static void work(byte[] payload) {
        try {
            SshEvent event = RECORDS.readValue(payload);
            if (event.fields().isEmpty()) {
                throw new IllegalArgumentException("an event without fields");
            }
        }
        catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The service's bean: applies nothing, as the pipelines of the other clients. */
    static final class Listener {

        /**
         * @param event the converted payload
         * @throws IllegalArgumentException when it has no fields (never, here)
         */
        @NatsListener(id = ID, subject = "varpulis.cluster.pipeline.bench.>")
        public void apply(SshEvent event) {
            if (event.fields().isEmpty()) {
                throw new IllegalArgumentException("an event without fields");
            }
        }

    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Substrate substrate() {
        return Substrate.JETSTREAM;
    }

    @Override
    public String durable(RouteEdge edge) {
        return ID;
    }

    @Override
    public void consume(RouteEdge edge, IntConsumer applied) {
        Map<String, ListenerSettings> listeners = Map.of(ID, new ListenerSettings(edge.subject(), null, null, null,
                null, null, ListenerSettings.BackOff.NONE, null, null, null, null));
        NatsListenerAnnotationBeanPostProcessor found = new NatsListenerAnnotationBeanPostProcessor();
        found.postProcessAfterInitialization(new Listener(), "listener");
        containers = new DeliveryContainerFactory(consuming, worker.parker, ContainerSettings.of(worker.consumer()),
                new Reporting(observed, applied));
        registry = new NatsListenerEndpointRegistry(found, new NatsListenerContainerFactory(containers, worker.admin,
                worker.metrics, template, new ListenerEndpoints(worker.consumer(), listeners,
                        ListenerEndpoints.ErrorHandlers.NONE, new ListenerMethods(converter, null, null), null),
                event -> {
                }), Duration.ofSeconds(5));
        registry.start();
        Broker.flush(worker.connection);
    }

    @Override
    public void publish(String subject, byte[] payload, Confirmation confirmed) {
        template.send(subject, payload).whenComplete((receipt, error) -> confirmed.done(error));
    }

    @Override
    public void close() {
        if (registry != null) {
            registry.stop();
        }
        if (containers != null) {
            containers.close();
        }
        Closing.quietly(worker);
        Closing.quietly(publisher);
        if (tracing != null) {
            Closing.quietly(tracing);
        }
    }

    /**
     * Reports each event's sequence number once the container acked it (convert, call,
     * ack), as the product client does once its ingress's outcome is known; around the
     * process observation when observed.
     */
    private record Reporting(DeliveryDecorator observed, IntConsumer applied) implements DeliveryDecorator {

        @Override
        public Delivery decorate(ConsumerDeclaration consumer, Delivery delivery) {
            return new ForwardingDelivery(observed.decorate(consumer, delivery)) {
                @Override
                protected void doAck() {
                    super.doAck();
                    applied.accept(Payloads.seq(delivery.data()));
                }
            };
        }
    }

}
