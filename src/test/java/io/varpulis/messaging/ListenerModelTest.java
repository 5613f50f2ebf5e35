package io.varpulis.messaging;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.container.StopReason;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.dlq.DeadLetterQuery;
import io.varpulis.dlq.ParkedEvent;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.support.MessageBuilder;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The listener model a Spring Kafka team expects, on a real nats-server (SPEC section 19,
 * issue 42): Spring Messaging's arguments and a service's converter bean, a batch that
 * fails on one element, an async return acked only when it completes, pause and resume by
 * id, stop and start through the endpoint, the container's events, autoStartup, and
 * per-subject order with concurrency.
 */
@BrokerTest
class ListenerModelTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    record Order(String id, int amount) {
    }

    static class Listeners {

        final Queue<String> seen = new ConcurrentLinkedQueue<>();

        final Map<String, Integer> batchCalls = new ConcurrentHashMap<>();

        final List<String> processed = new CopyOnWriteArrayList<>();

        final Queue<NatsListenerEvent> events = new ConcurrentLinkedQueue<>();

        final Map<String, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();

        @NatsListener(id = "args", subject = "model.args.>")
        void arguments(@Payload Order order, @Header(NatsHeaders.ATTEMPT) long attempt,
                @Header(name = "Origin", required = false) String origin, Message<Order> message,
                DeliveryMetadata delivery) {
            seen.add(order.id() + "|" + attempt + "|" + origin + "|" + message.getPayload().amount() + "|"
                    + message.getHeaders().get(NatsHeaders.SUBJECT) + "|" + delivery.streamSequence());
        }

        @NatsListener(id = "batch", subject = "model.batch.>", batch = true, batchSize = 20, maxDeliver = 3)
        void batch(List<Order> orders) {
            for (int i = 0; i < orders.size(); i++) {
                Order order = orders.get(i);
                batchCalls.merge(order.id(), 1, Integer::sum);
                if (order.id().equals("b7")) {
                    throw new BatchListenerFailedException("cannot apply b7", new IllegalStateException("b7"), i);
                }
                processed.add(order.id());
            }
        }

        final Map<String, Integer> asyncBatchCalls = new ConcurrentHashMap<>();

        @NatsListener(id = "async-batch", subject = "model.asyncbatch.>", batch = true, batchSize = 20,
                autoStartup = "false")
        CompletableFuture<Void> asyncBatch(List<Order> orders) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            int failed = -1;
            for (int i = 0; i < orders.size(); i++) {
                if (asyncBatchCalls.merge(orders.get(i).id(), 1, Integer::sum) == 1
                        && orders.get(i).id().equals("c4")) {
                    failed = i;
                }
            }
            int index = failed;
            new Thread(() -> {
                if (index >= 0) {
                    done.completeExceptionally(
                            new BatchListenerFailedException("c4 once", new IllegalStateException("c4"), index));
                }
                else {
                    done.complete(null);
                }
            }, "async-batch-completer").start();
            return done;
        }

        @NatsListener(id = "async", subject = "model.async.>")
        CompletableFuture<Void> async(Order order) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            pending.put(order.id(), done);
            return done;
        }

        @NatsListener(id = "paused", subject = "model.paused.>", autoStartup = "false")
        void paused(Order order) {
            processed.add(order.id());
        }

        @NatsListener(id = "ordered", subject = "model.ordered.>", concurrency = 4, orderedBySubject = true)
        void ordered(Order order, DeliveryMetadata delivery) throws InterruptedException {
            Thread.sleep(order.amount() % 3);
            seen.add(delivery.subject() + "=" + order.amount());
        }

        @EventListener
        void on(NatsListenerEvent event) {
            events.add(event);
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        Listeners listeners() {
            return new Listeners();
        }

    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Service.class)
        .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                "varpulis.nats.jetstream.streams.MODEL.subjects=model.>",
                "varpulis.nats.jetstream.consumer.backoff.delay=100ms",
                "management.tracing.export.zipkin.enabled=false");

    @AfterEach
    void deleteStreams() throws Exception {
        try (Connection connection = Nats.connect(nats.url())) {
            JetStreamManagement jsm = connection.jetStreamManagement();
            for (String stream : jsm.getStreamNames()) {
                jsm.deleteStream(stream);
            }
        }
    }

    private static void send(ConfigurableApplicationContext context, String subject, Order order) throws Exception {
        context.getBean(NatsTemplate.class).send(subject, order).get();
    }

    private static ConsumerInfo consumer(ConfigurableApplicationContext context, String durable) throws Exception {
        return context.getBean(Connection.class).jetStreamManagement().getConsumerInfo("MODEL", durable);
    }

    @Test
    void springMessagingArgumentsAreResolved() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(NatsTemplate.class)
                .send(OutboundEvent.to("model.args.x", new Order("a1", 42)).withHeader("Origin", "ground"))
                .get();
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> !listeners.seen.isEmpty());
            assertThat(listeners.seen).singleElement().asString().startsWith("a1|1|ground|42|model.args.x|");
        });
    }

    @Test
    void aServicesMessageConverterBeanConvertsPayloads_andItsRefusalIsParkedOnDeliveryOne() {
        runner.withBean(MessageConverter.class, () -> new MessageConverter() {
            @Override
            public Object fromMessage(Message<?> message, Class<?> targetClass) {
                String text = new String((byte[]) message.getPayload(), StandardCharsets.UTF_8);
                if (!text.startsWith("order:")) {
                    throw new MessageConversionException("not an order line: " + text);
                }
                String[] parts = text.substring(6).split(",");
                return new Order(parts[0], Integer.parseInt(parts[1]));
            }

            @Override
            public Message<?> toMessage(Object payload, org.springframework.messaging.MessageHeaders headers) {
                return MessageBuilder.withPayload(payload).build();
            }
        }).run(context -> {
            assertThat(context).hasNotFailed();
            NatsTemplate template = context.getBean(NatsTemplate.class);
            template.send("model.args.y", "order:c1,7".getBytes(StandardCharsets.UTF_8)).get();
            template.send("model.args.y", "garbage".getBytes(StandardCharsets.UTF_8)).get();
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> !listeners.seen.isEmpty());
            assertThat(listeners.seen).singleElement().asString().startsWith("c1|1|null|7|");
            DeadLetterConsole console = context.getBean(DeadLetterConsole.class);
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(console.list(DeadLetterQuery.all()).events()).hasSize(1));
            assertThat(console.list(DeadLetterQuery.all()).events().get(0).envelope())
                .containsEntry("reason", "undecodable")
                .containsEntry("attempts", 1);
        });
    }

    @Test
    void aBatchThatFailsOnElementSeven_acksTheOnesBefore_retriesAndParksIt_andAppliesTheRest() {
        runner.withPropertyValues("varpulis.nats.listeners.batch.auto-startup=false").run(context -> {
            assertThat(context).hasNotFailed();
            for (int i = 0; i < 20; i++) {
                send(context, "model.batch.x", new Order("b" + i, i));
            }
            context.getBean(NatsListenerEndpointRegistry.class).getListenerContainer("batch").start();
            DeadLetterConsole console = context.getBean(DeadLetterConsole.class);
            await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(console.list(DeadLetterQuery.all()).events()).hasSize(1));
            Listeners listeners = context.getBean(Listeners.class);
            ParkedEvent parked = console.list(DeadLetterQuery.all()).events().get(0);
            assertThat(parked.envelope()).containsEntry("reason", "max_deliver").containsEntry("attempts", 3);
            assertThat(listeners.processed).hasSize(19).doesNotContain("b7");
            for (int i = 0; i < 7; i++) {
                assertThat(listeners.batchCalls.get("b" + i)).as("b" + i + " applied once").isEqualTo(1);
            }
            assertThat(listeners.batchCalls.get("b7")).isEqualTo(3);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(consumer(context, "batch").getNumAckPending()).isZero();
                assertThat(consumer(context, "batch").getNumPending()).isZero();
            });
        });
    }

    @Test
    void anAsyncBatchThatFailsOnAnElementOnce_acksTheOthers_andAppliesItOnItsRedelivery() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            for (int i = 0; i < 10; i++) {
                send(context, "model.asyncbatch.x", new Order("c" + i, i));
            }
            context.getBean(NatsListenerEndpointRegistry.class).getListenerContainer("async-batch").start();
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(listeners.asyncBatchCalls.get("c4")).isEqualTo(2);
                assertThat(consumer(context, "async-batch").getNumAckPending()).isZero();
                assertThat(consumer(context, "async-batch").getNumPending()).isZero();
            });
            for (int i = 0; i < 4; i++) {
                assertThat(listeners.asyncBatchCalls.get("c" + i)).as("c" + i + " applied once").isEqualTo(1);
            }
            for (int i = 5; i < 10; i++) {
                assertThat(listeners.asyncBatchCalls.get("c" + i)).as("c" + i + " called again once after c4")
                    .isBetween(1, 2);
            }
            assertThat(context.getBean(DeadLetterConsole.class).list(DeadLetterQuery.all()).events()).isEmpty();
        });
    }

    @Test
    void anAsyncReturnIsAckedOnlyWhenItCompletes_onAnotherThread() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            send(context, "model.async.x", new Order("f1", 1));
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.pending.containsKey("f1"));
            await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(2))
                .untilAsserted(() -> assertThat(consumer(context, "async").getNumAckPending()).isEqualTo(1));
            new Thread(() -> listeners.pending.get("f1").complete(null)).start();
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(consumer(context, "async").getNumAckPending()).isZero());
        });
    }

    @Test
    void aListenerNotAutoStarted_pausedThenResumed_andStoppedAndStartedThroughTheEndpoint_publishesItsEvents() {
        runner
            .withPropertyValues("varpulis.nats.listener-idle-event-interval=1s",
                    "management.endpoints.web.exposure.include=natslisteners")
            .run(context -> {
                assertThat(context).hasNotFailed();
                NatsListenerEndpointRegistry registry = context.getBean(NatsListenerEndpointRegistry.class);
                NatsListenerContainer container = registry.getListenerContainer("paused");
                Listeners listeners = context.getBean(Listeners.class);
                assertThat(container.isRunning()).isFalse();
                send(context, "model.paused.x", new Order("p0", 0));
                await().during(Duration.ofMillis(500)).until(() -> listeners.processed.isEmpty());

                container.start();
                await().atMost(Duration.ofSeconds(10)).until(() -> listeners.processed.contains("p0"));
                container.pause();
                assertThat(container.isPaused()).isTrue();
                for (int i = 1; i <= 5; i++) {
                    send(context, "model.paused.x", new Order("p" + i, i));
                }
                await().during(Duration.ofSeconds(1)).until(() -> listeners.processed.size() == 1);
                assertThat(consumer(context, "paused").getNumPending()).isEqualTo(5);
                container.resume();
                await().atMost(Duration.ofSeconds(10)).until(() -> listeners.processed.size() == 6);

                NatsListenersEndpoint endpoint = context.getBean(NatsListenersEndpoint.class);
                WebEndpointResponse<Object> stopped = endpoint.control("paused", "stop", null);
                assertThat(stopped.getBody()).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("state", "STOPPED");
                send(context, "model.paused.x", new Order("p6", 6));
                await().during(Duration.ofMillis(500)).until(() -> listeners.processed.size() == 6);
                endpoint.control("paused", "start", null);
                await().atMost(Duration.ofSeconds(10)).until(() -> listeners.processed.size() == 7);
                assertThat(endpoint.control("paused", "jump", null).getStatus()).isEqualTo(400);
                assertThat(endpoint.listener("nobody").getStatus()).isEqualTo(404);

                await().atMost(Duration.ofSeconds(5))
                    .until(() -> listeners.events.stream()
                        .anyMatch(e -> e instanceof NatsListenerEvent.Idle && e.listenerId().equals("paused")));
                List<String> kinds = listeners.events.stream()
                    .filter(e -> e.listenerId().equals("paused"))
                    .map(e -> e.getClass().getSimpleName())
                    .distinct()
                    .toList();
                assertThat(kinds).contains("Starting", "Started", "Paused", "Resumed", "Stopped", "Idle");
                assertThat(listeners.events.stream()
                    .filter(e -> e instanceof NatsListenerEvent.Stopped && e.listenerId().equals("paused"))
                    .map(e -> ((NatsListenerEvent.Stopped) e).reason())).containsOnly(StopReason.NORMAL);
            });
    }

    @Test
    void withConcurrencyOneSubjectsDeliveriesKeepTheirOrder() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            for (int i = 0; i < 60; i++) {
                send(context, "model.ordered.s" + (i % 3), new Order("o" + i, i));
            }
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> listeners.seen.size() == 60);
            for (int s = 0; s < 3; s++) {
                String subject = "model.ordered.s" + s + "=";
                List<Integer> amounts = listeners.seen.stream()
                    .filter(line -> line.startsWith(subject))
                    .map(line -> Integer.parseInt(line.substring(subject.length())))
                    .toList();
                assertThat(amounts).hasSize(20).isSorted();
            }
        });
    }

}
