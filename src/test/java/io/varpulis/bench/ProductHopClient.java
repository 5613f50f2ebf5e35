package io.varpulis.bench;

import io.varpulis.container.ContainerSettings;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.delivery.RouteIngress;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.NatsTestProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.observation.ObservedClusterTransport;
import io.varpulis.observation.ObservedDeliveries;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;

import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * The product: {@code ClusterTransport.publish} (pipelined PubAcks, the window of
 * {@code varpulis.nats.jetstream.max-outstanding-publishes}) on one connection, and on
 * another a {@link RouteIngress} with a no-op processor consuming the edge's durable
 * consumer, deciding and sending the ack, with ADR-007's default settings throughout.
 * <p>
 * Observed (issue 23): both transports wrapped in the {@link ObservedClusterTransport}
 * that {@code varpulis.nats.observation-enabled=true} puts around a node's transport,
 * observing with {@link BenchTracing} (Brave, W3C headers, timers) at the given sampling
 * probability.
 */
final class ProductHopClient implements HopClient {

    private final Substrate substrate;

    private final SubstrateFixture publisher;

    private final SubstrateFixture worker;

    private final BenchTracing tracing;

    private final ClusterTransport publishing;

    private final ClusterTransport consuming;

    private final DeliveryContainerFactory containers;

    private final String name;

    private final Map<String, String> headers;

    private Consumption consumption;

    ProductHopClient(String url, Substrate substrate) throws Exception {
        this(url, substrate, Float.NaN);
    }

    /**
     * @param sampling the observation's sampling probability (0 to 1), or NaN for no
     * observation (the default)
     */
    ProductHopClient(String url, Substrate substrate, float sampling) throws Exception {
        this(url, substrate, sampling, Map.of());
    }

    /**
     * The product unobserved, each event published with a sampled-out {@code traceparent}
     * as an observed publisher writes it (issue 32): what carrying the trace context
     * costs on the wire (jnats' header encoding and parsing, the server's), apart from
     * observation's own work.
     * @param url the server
     * @param substrate the substrate
     * @return the client, connected
     * @throws Exception when the server is unreachable
     */
    static ProductHopClient withTraceparent(String url, Substrate substrate) throws Exception {
        return new ProductHopClient(url, substrate, Float.NaN, Map.of("traceparent", UNSAMPLED_TRACEPARENT));
    }

    /** A W3C context whose trace is not sampled (flags 00). */
    private static final String UNSAMPLED_TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";

    private ProductHopClient(String url, Substrate substrate, float sampling, Map<String, String> headers)
            throws Exception {
        this.headers = headers;
        this.substrate = substrate;
        this.publisher = SubstrateFixture.connect(url, substrate, new NatsTestProperties());
        this.worker = SubstrateFixture.connect(url, substrate, new NatsTestProperties());
        if (Float.isNaN(sampling)) {
            tracing = null;
            publishing = publisher.transport;
            consuming = worker.transport;
            containers = worker.containers;
            name = headers.isEmpty() ? "product" : "product + traceparent";
        }
        else {
            tracing = new BenchTracing(sampling);
            publishing = new ObservedClusterTransport(publisher.transport, tracing.registry(), null, null,
                    tracing.traces(), tracing.untraced());
            consuming = new ObservedClusterTransport(worker.transport, tracing.registry(), null, null, tracing.traces(),
                    tracing.untraced());
            containers = new DeliveryContainerFactory(consuming, worker.parker,
                    ContainerSettings.of(worker.properties.consumer().toSettings()),
                    new ObservedDeliveries(tracing.registry(), null, tracing.traces(), tracing.untraced()));
            name = observedName(sampling);
        }
    }

    /**
     * @param sampling the sampling probability
     * @return the name of the observed product client in the tables
     */
    static String observedName(float sampling) {
        return "product, observed " + Math.round(sampling * 100) + " %";
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Substrate substrate() {
        return substrate;
    }

    @Override
    public void consume(RouteEdge edge, IntConsumer applied) {
        RouteIngress ingress = worker.ingress(edge, (event, context) -> List.of(), OutputEmitter.NONE).adapter();
        // What the pipeline host runs, with the sequence number reported once the outcome
        // is known (the ack follows).
        consumption = containers
            .create(VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(), worker.consumer()), edge.to(),
                    worker.metrics.deliveries(edge.to(), SubstrateMetrics.UNPARTITIONED, true), 1,
                    delivery -> ingress.handle(delivery).thenApply(outcome -> {
                        applied.accept(Payloads.seq(delivery.data()));
                        return outcome;
                    }))
            .start();
        Broker.flush(worker.connection);
    }

    @Override
    public void publish(String subject, byte[] payload, Confirmation confirmed) {
        publishing
            .publish(headers.isEmpty() ? new OutboundMessage(subject, payload, null)
                    : new OutboundMessage(subject, payload, null, headers, null, null))
            .whenComplete((receipt, error) -> confirmed.done(error));
    }

    @Override
    public void close() {
        if (consumption != null) {
            consumption.close();
        }
        if (tracing != null) {
            Closing.quietly(containers);
            Closing.quietly(consuming);
            Closing.quietly(publishing);
            Closing.quietly(tracing);
        }
        Closing.quietly(worker);
        Closing.quietly(publisher);
    }

}
