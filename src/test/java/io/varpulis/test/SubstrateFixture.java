package io.varpulis.test;

import io.varpulis.jetstream.NakBackOff;
import io.varpulis.container.ContainerSettings;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.delivery.OutputEmitter;
import io.varpulis.delivery.PipelineHost;
import io.varpulis.delivery.RouteIngress;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.KeyValueStateFactory;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.ProcessorRegistry;
import io.varpulis.pipeline.ProcessorType;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.DeliveryDecorator;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * One node's substrate built by hand, the way a library user would without Spring: a
 * connection, the admin with ADR-007's three streams, the transport, the parker and
 * meters. Closing it closes the connection abruptly, without acking anything in flight,
 * like a killed process.
 */
public final class SubstrateFixture implements AutoCloseable {

    /** Short nak delay so that five deliveries take a fraction of a second in tests. */
    public static final Duration TEST_NAK_DELAY = Duration.ofMillis(100);

    /**
     * Containers of one thread, naks after {@link #TEST_NAK_DELAY}, the default apply
     * timeout.
     */
    public static final ContainerSettings TEST_CONTAINERS = ContainerSettings
        .of(new ConsumerSettings(Duration.ofSeconds(30), 5, 1024, Duration.ofDays(7), NakBackOff.fixed(TEST_NAK_DELAY),
                ConsumerSettings.DEFAULT_APPLY_TIMEOUT, 500));

    public final Connection connection;

    public final Substrate substrate;

    public final NatsTestProperties properties;

    public final JetStreamAdmin admin;

    public final ClusterTransport transport;

    public final SubstrateMetrics metrics = SubstrateMetrics.inMemory();

    public final EventCodec codec = new EventCodec();

    public final DeadLetterParker parker;

    public final DeliveryContainerFactory containers;

    private SubstrateFixture(String url, Substrate substrate, NatsTestProperties properties) throws Exception {
        this.connection = Nats
            .connect(new Options.Builder().server(url).connectionTimeout(Duration.ofSeconds(2)).build());
        this.substrate = substrate;
        this.properties = properties;
        if (substrate == Substrate.JETSTREAM) {
            admin = new JetStreamAdmin(connection, null);
            admin.verifyJetStream();
            admin.provision(properties.builtInStreams(), List.of());
        }
        else {
            admin = null;
        }
        transport = ClusterTransports.create(connection, substrate, admin, properties.transportSettings());
        parker = new DeadLetterParker(transport, codec.mapper(), Clock.systemUTC());
        containers = new DeliveryContainerFactory(transport, parker,
                ContainerSettings.of(properties.consumer().toSettings()), DeliveryDecorator.NONE);
    }

    /**
     * @param url the test server
     * @param substrate the substrate
     * @return a fixture with ADR-007 defaults except a 100 ms nak delay
     * @throws Exception when the server is unreachable
     */
    public static SubstrateFixture connect(String url, Substrate substrate) throws Exception {
        NatsTestProperties properties = new NatsTestProperties();
        properties.consumer().setNakDelay(TEST_NAK_DELAY);
        return connect(url, substrate, properties);
    }

    /**
     * @param url the test server
     * @param substrate the substrate
     * @param properties the settings
     * @return the fixture
     * @throws Exception when the server is unreachable
     */
    public static SubstrateFixture connect(String url, Substrate substrate, NatsTestProperties properties)
            throws Exception {
        return new SubstrateFixture(url, substrate, properties);
    }

    /**
     * @param edge the edge to consume
     * @param processor the pipeline
     * @param emitter where outputs go
     * @return the ingress, not started
     */
    public TestIngress ingress(RouteEdge edge, EventProcessor processor, OutputEmitter emitter) {
        return ingress(edge, List.of("*"), processor, new InMemoryKeyValueState(), emitter);
    }

    /**
     * @param edge the edge to consume
     * @param eventTypes the event-type patterns the edge carries
     * @param processor the pipeline
     * @param state its state
     * @param emitter where outputs go
     * @return the ingress, not started
     */
    public TestIngress ingress(RouteEdge edge, List<String> eventTypes, EventProcessor processor, KeyValueState state,
            OutputEmitter emitter) {
        return new TestIngress(
                new RouteIngress(edge, eventTypes, TestPipelines.deployed(edge.group(), edge.to(), processor, state),
                        emitter, codec, parker, RouteIngress.OwnershipListener.NONE),
                this);
    }

    /**
     * A worker's pipeline host over this fixture, whose only processor type,
     * {@code test}, is {@code processor}.
     * @param processor what every pipeline of type {@code test} runs
     * @param states where the pipelines' state lives
     * @return the host; the caller closes it
     */
    public PipelineHost host(EventProcessor processor, KeyValueStateFactory states) {
        ProcessorType type = new ProcessorType() {
            @Override
            public String name() {
                return "test";
            }

            @Override
            public EventProcessor create(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline) {
                return processor;
            }
        };
        return new PipelineHost(containers, new ProcessorRegistry(List.of(type)), states, codec, metrics, consumer(),
                TestThreads.host());
    }

    /**
     * @return the durable consumer settings of this fixture's properties
     */
    public ConsumerSettings consumer() {
        return properties.consumerSettings();
    }

    /**
     * @return the JetStream management API of this connection
     * @throws Exception when JetStream is unavailable
     */
    public JetStreamManagement jsm() throws Exception {
        return connection.jetStreamManagement();
    }

    @Override
    public void close() throws Exception {
        transport.close();
        containers.close();
        connection.close();
    }

}
