package io.varpulis.bench;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import io.nats.client.Connection;
import io.nats.client.ConsumeOptions;
import io.nats.client.JetStream;
import io.nats.client.Message;
import io.nats.client.MessageConsumer;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.RouteEdge;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntConsumer;

/**
 * Raw jnats + {@link EventCodec} (the {@code raw-codec} client) instrumented by hand with
 * Micrometer's Observation API and nothing of the substrate's (issue 32, the reference
 * for its 100 % target): each publish a producer observation whose {@link SenderContext}
 * carries the message's jnats {@link Headers}, each delivery a consumer observation whose
 * {@link ReceiverContext} reads them, both with the low-cardinality tags of SPEC section
 * 14 and the subject as a high-cardinality one, observed into {@link BenchTracing}'s
 * registry (Boot's propagating sender and receiver handlers, default tracing handler and
 * meter handlers over Brave) at the given sampling. What it costs over {@code raw-codec}
 * is what the tracer and Micrometer charge for a hop, with no substrate code in between.
 */
final class RawObservedHopClient implements HopClient {

    private final Connection publisher;

    private final Connection worker;

    private final JetStream jetStream;

    private final int batchSize;

    private final BenchTracing tracing;

    private final String name;

    private final EventCodec codec = new EventCodec();

    private final ArrayDeque<CompletableFuture<PublishAck>> window = new ArrayDeque<>(RawJetStreamHopClient.WINDOW);

    private MessageConsumer messages;

    /**
     * @param url the server
     * @param batchSize messages per pull
     * @param sampling the sampling probability, 0 to 1
     */
    RawObservedHopClient(String url, int batchSize, float sampling) throws Exception {
        this.publisher = Broker.connect(url);
        this.worker = Broker.connect(url);
        this.jetStream = publisher.jetStream();
        this.batchSize = batchSize;
        this.tracing = new BenchTracing(sampling);
        this.name = "raw jnats + EventCodec, Micrometer by hand " + Math.round(sampling * 100) + " %";
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
    public void consume(RouteEdge edge, IntConsumer applied) {
        ConsumerDeclaration consumer = VarpulisJetStream.routeEdgeConsumer(edge.to(), edge.subject(),
                ConsumerSettings.defaults());
        try {
            worker.jetStreamManagement().addOrUpdateConsumer(consumer.stream(), consumer.configuration());
            messages = worker.getStreamContext(consumer.stream())
                .getConsumerContext(consumer.durable())
                .consume(ConsumeOptions.builder().batchSize(batchSize).build(), msg -> {
                    ReceiverContext<Message> context = new ReceiverContext<>(
                            (carrier, key) -> carrier.getHeaders() == null ? null : carrier.getHeaders().getFirst(key));
                    context.setCarrier(msg);
                    context.setRemoteServiceName("nats");
                    context.addLowCardinalityKeyValues(KeyValues.of("messaging.system", "nats",
                            "messaging.operation.type", "process", "messaging.destination.name", "bench",
                            "messaging.consumer.group.name", consumer.durable()));
                    context.addHighCardinalityKeyValues(KeyValues.of("messaging.nats.subject", msg.getSubject()));
                    Observation observation = Observation
                        .createNotStarted("varpulis.nats.process", () -> context, tracing.registry())
                        .contextualName("process bench")
                        .start();
                    try (Observation.Scope scope = observation.openScope()) {
                        codec.decode(msg.getData());
                        msg.ack();
                    }
                    finally {
                        observation.stop();
                    }
                    applied.accept(Payloads.seq(msg.getData()));
                });
        }
        catch (Exception e) {
            throw new IllegalStateException("raw consumer " + consumer.durable() + ": " + e, e);
        }
    }

    @Override
    public void publish(String subject, byte[] payload, Confirmation confirmed) {
        if (window.size() == RawJetStreamHopClient.WINDOW) {
            try {
                window.poll().join();
            }
            catch (CompletionException counted) {
                // Counted by its own confirmation below.
            }
        }
        Headers headers = new Headers();
        SenderContext<Headers> context = new SenderContext<>((carrier, key, value) -> carrier.put(key, value));
        context.setCarrier(headers);
        context.setRemoteServiceName("nats");
        context.addLowCardinalityKeyValues(KeyValues.of("messaging.system", "nats", "messaging.operation.type", "send",
                "messaging.destination.name", "bench"));
        context.addHighCardinalityKeyValues(KeyValues.of("messaging.nats.subject", subject));
        Observation observation = Observation.createNotStarted("varpulis.nats.send", () -> context, tracing.registry())
            .contextualName("send bench")
            .start();
        CompletableFuture<PublishAck> ack = jetStream.publishAsync(NatsMessage.builder()
            .subject(subject)
            .headers(headers.isEmpty() ? null : headers)
            .data(payload)
            .build());
        ack.whenComplete((pa, error) -> {
            if (error != null) {
                observation.error(error);
            }
            observation.stop();
            confirmed.done(error);
        });
        window.add(ack);
    }

    @Override
    public void close() {
        if (messages != null) {
            Closing.quietly(messages);
        }
        Closing.quietly(worker);
        Closing.quietly(publisher);
        tracing.close();
    }

}
