package io.varpulis.bench;

import io.varpulis.delivery.OutputEmitter;
import io.varpulis.delivery.RouteIngress;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.OutboundMessage;

import java.util.List;
import java.util.function.IntConsumer;

/**
 * The product: {@code ClusterTransport.publish} (pipelined PubAcks, the window of
 * {@code varpulis.nats.jetstream.max-outstanding-publishes}) on one connection, and on another a {@link RouteIngress}
 * with a no-op processor consuming the edge's durable consumer, deciding and sending the ack, with ADR-007's default
 * settings throughout.
 */
final class ProductHopClient implements HopClient {

    private final Substrate substrate;
    private final SubstrateFixture publisher;
    private final SubstrateFixture worker;
    private Consumption consumption;

    ProductHopClient(String url, Substrate substrate) throws Exception {
        this.substrate = substrate;
        this.publisher = SubstrateFixture.connect(url, substrate, new NatsProperties());
        this.worker = SubstrateFixture.connect(url, substrate, new NatsProperties());
    }

    @Override
    public String name() {
        return "product";
    }

    @Override
    public Substrate substrate() {
        return substrate;
    }

    @Override
    public void consume(RouteEdge edge, IntConsumer applied) {
        RouteIngress ingress = worker.ingress(edge, (event, context) -> List.of(), OutputEmitter.NONE);
        // What RouteIngress.start does, with the sequence number reported once onDelivery (apply, then ack) returned.
        consumption = worker.transport.consume(VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(),
                worker.properties.getJetstream().getConsumer()), delivery -> {
                    ingress.onDelivery(delivery);
                    applied.accept(Payloads.seq(delivery.data()));
                });
        Broker.flush(worker.connection);
    }

    @Override
    public void publish(String subject, byte[] payload, Confirmation confirmed) {
        publisher.transport.publish(new OutboundMessage(subject, payload, null))
                .whenComplete((receipt, error) -> confirmed.done(error));
    }

    @Override
    public void close() {
        if (consumption != null) {
            consumption.close();
        }
        Closing.quietly(worker);
        Closing.quietly(publisher);
    }
}
