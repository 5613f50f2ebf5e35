package io.varpulis.test;

import io.varpulis.container.ContainerSettings;
import io.varpulis.container.DeliveryContainer;
import io.varpulis.container.DeliveryContainerFactory;
import io.varpulis.delivery.RouteIngress;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.DeliveryDecorator;

/**
 * A route ingress built by a {@link SubstrateFixture}, started in a delivery container of
 * its own, the way the pipeline host runs one: consuming its edge with the pipeline's
 * durable consumer.
 *
 * @param adapter the ingress
 * @param fixture the node it runs on
 */
public record TestIngress(RouteIngress adapter, SubstrateFixture fixture) {

    /**
     * @param transport the transport to consume from (the fixture's, or another node's)
     * @param settings the consumer settings
     * @return the running container; close it to stop consuming
     */
    public DeliveryContainer start(ClusterTransport transport, ConsumerSettings settings) {
        DeliveryContainerFactory containers = transport == fixture.transport ? fixture.containers
                : new DeliveryContainerFactory(transport, fixture.parker, ContainerSettings.of(settings),
                        DeliveryDecorator.NONE);
        RouteEdge edge = adapter.edge();
        return containers
            .create(VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(), settings), edge.to(),
                    fixture.metrics.deliveries(edge.to(), adapter.pipeline().partitionTag(), true), 1, adapter)
            .start();
    }

    /**
     * Sets where an off-partition event is republished, as
     * {@link RouteIngress#reroutingTo}.
     * @param emitter the emitter
     * @return this
     */
    public TestIngress reroutingTo(io.varpulis.delivery.OutputEmitter emitter) {
        adapter.reroutingTo(emitter);
        return this;
    }
}
