package com.example.orders.plain;

import com.example.orders.Order;
import com.example.orders.OrderFile;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.nats.client.Connection;
import io.nats.client.ConsumerContext;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The listener's work with jnats and Jackson alone: a durable pull consumer with the listener's configuration
 * (explicit ack, ack_wait 30 s, max_deliver 5, max_ack_pending 1024), fetched 500 at a time on the main thread; each
 * message decoded into the same {@link Order} with a Jackson 2 mapper built as the library's default converter's
 * (the modules on the classpath), its line written by the same {@link OrderFile}, then acked.
 * <p>
 * {@code java -cp orders-plain.jar:lib/* com.example.orders.plain.PlainConsumer --url=nats://... --stream=ORDERS
 * --durable=orders --subject=orders.> --file=orders.csv --expected=20000 --result=result.properties}
 */
public final class PlainConsumer {

    private PlainConsumer() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        String stream = options.get("stream");
        String durable = options.get("durable");
        int expected = Integer.parseInt(options.get("expected"));
        ObjectReader orders = JsonMapper.builder().findAndAddModules().build().readerFor(Order.class);
        try (Connection nats = Nats.connect(Options.builder().server(options.get("url")).build());
                OrderFile file = new OrderFile(Path.of(options.get("file")), expected, Path.of(options.get("result")))) {
            nats.jetStreamManagement()
                .addOrUpdateConsumer(stream,
                        ConsumerConfiguration.builder()
                            .durable(durable)
                            .filterSubject(options.get("subject"))
                            .deliverPolicy(DeliverPolicy.All)
                            .ackPolicy(AckPolicy.Explicit)
                            .ackWait(Duration.ofSeconds(30))
                            .maxDeliver(5)
                            .maxAckPending(1024)
                            .inactiveThreshold(Duration.ofDays(7))
                            .build());
            ConsumerContext consumer = nats.getConsumerContext(stream, durable);
            FetchConsumeOptions fetch = FetchConsumeOptions.builder().maxMessages(500).expiresIn(2000).build();
            while (file.lines() < expected) {
                try (FetchConsumer batch = consumer.fetch(fetch)) {
                    for (Message message = batch.nextMessage(); message != null; message = batch.nextMessage()) {
                        file.write(orders.readValue(message.getData()));
                        message.ack();
                    }
                }
            }
        }
    }

}
