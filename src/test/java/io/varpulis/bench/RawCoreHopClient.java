package io.varpulis.bench;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;

import java.util.function.IntConsumer;

/**
 * The raw jnats baseline on core NATS: {@code Connection.publish} and a dispatcher
 * subscribed with a queue group, as the product's core transport does, with nothing
 * around them.
 */
final class RawCoreHopClient implements HopClient {

    private final Connection publisher;

    private final Connection worker;

    RawCoreHopClient(String url) throws Exception {
        this.publisher = Broker.connect(url);
        this.worker = Broker.connect(url);
    }

    @Override
    public String name() {
        return "raw jnats";
    }

    @Override
    public Substrate substrate() {
        return Substrate.CORE;
    }

    @Override
    public void consume(RouteEdge edge, IntConsumer applied) {
        Dispatcher dispatcher = worker.createDispatcher();
        dispatcher.subscribe(edge.subject(), DurableNames.routeConsumer(edge.to(), edge.subject()),
                msg -> applied.accept(Payloads.seq(msg.getData())));
        Broker.flush(worker);
    }

    @Override
    public void publish(String subject, byte[] payload, Confirmation confirmed) {
        publisher.publish(subject, payload);
        confirmed.done(null);
    }

    @Override
    public void close() {
        Closing.quietly(worker);
        Closing.quietly(publisher);
    }

}
