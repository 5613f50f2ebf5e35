package io.varpulis.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.ConsumeOptions;
import io.nats.client.JetStream;
import io.nats.client.MessageConsumer;
import io.nats.client.api.PublishAck;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.RouteEdge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntConsumer;

/**
 * The hand-written raw jnats baseline on JetStream, doing what the product does with
 * nothing around it: {@code publishAsync} with a window of {@value #WINDOW} outstanding
 * PubAcks (the oldest is awaited when it is full, as in jnats' examples), and a durable
 * pull consumer (the same configuration as the product's) read with
 * {@code ConsumerContext.consume}, each message acked explicitly after a no-op apply. It
 * does not decode the JSON, unless asked to: {@link Decode#JACKSON}
 * ({@code --baseline=raw-decode}) reads each payload into a {@code Map} with Jackson data
 * binding before the ack, what a hand-written consumer that looks at its events does;
 * {@link Decode#CODEC} reads it with the product's own {@link EventCodec}, as its route
 * ingress always does (SPEC section 4: undecodable events are parked, the event type is
 * checked), so that the product's cost over this client is all but the decode;
 * {@link Decode#RECORD} does by hand what the listener client's method and conversion do.
 */
final class RawJetStreamHopClient implements HopClient {

    /** Outstanding PubAcks, the figure of issue 7's reference measurement. */
    static final int WINDOW = 1000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Connection publisher;

    private final Connection worker;

    private final JetStream jetStream;

    private final int batchSize;

    private final Decode decode;

    private final EventCodec codec = new EventCodec();

    private final ArrayDeque<CompletableFuture<PublishAck>> window = new ArrayDeque<>(WINDOW);

    private MessageConsumer messages;

    /** What the consumer does with each payload before its ack. */
    enum Decode {

        /** Nothing: jnats alone, the targets' reference. */
        NONE("raw jnats"),
        /** Jackson data binding into a {@code Map}. */
        JACKSON("raw jnats + Jackson"),
        /** The product's {@link EventCodec#decode}. */
        CODEC("raw jnats + EventCodec"),
        /**
         * What the listener client's method does, by hand: Jackson 2 data binding into
         * the same record, with the same mapper, and the same check (issue 34: a
         * {@code @NatsListener} against a plain jnats pull consumer doing the same work).
         */
        RECORD("raw jnats + the listener's work");

        private final String client;

        Decode(String client) {
            this.client = client;
        }

        /**
         * @return the client's name in the tables
         */
        String client() {
            return client;
        }

    }

    /**
     * @param batchSize messages per pull; jnats' default
     * ({@code ConsumeOptions.DEFAULT_CONSUME_OPTIONS}) is 500
     * @param decode what is done with each payload before its ack
     */
    RawJetStreamHopClient(String url, int batchSize, Decode decode) throws Exception {
        this.publisher = Broker.connect(url);
        this.worker = Broker.connect(url);
        this.jetStream = publisher.jetStream();
        this.batchSize = batchSize;
        this.decode = decode;
    }

    @Override
    public String name() {
        return decode.client();
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
                    switch (decode) {
                        case JACKSON -> decoded(msg.getData());
                        case CODEC -> codec.decode(msg.getData());
                        case RECORD -> ListenerHopClient.work(msg.getData());
                        case NONE -> {
                        }
                    }
                    msg.ack();
                    applied.accept(Payloads.seq(msg.getData()));
                });
        }
        catch (Exception e) {
            throw new IllegalStateException("raw consumer " + consumer.durable() + ": " + e, e);
        }
    }

    private static void decoded(byte[] payload) {
        try {
            if (JSON.readValue(payload, Map.class).isEmpty()) {
                throw new IllegalStateException("an empty event");
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void publish(String subject, byte[] payload, Confirmation confirmed) {
        if (window.size() == WINDOW) {
            try {
                window.poll().join();
            }
            catch (CompletionException counted) {
                // Counted by its own confirmation below; the window only needs the slot
                // back.
            }
        }
        CompletableFuture<PublishAck> ack = jetStream.publishAsync(subject, payload);
        ack.whenComplete((pa, error) -> confirmed.done(error));
        window.add(ack);
    }

    @Override
    public void close() {
        if (messages != null) {
            Closing.quietly(messages);
        }
        Closing.quietly(worker);
        Closing.quietly(publisher);
    }

}
