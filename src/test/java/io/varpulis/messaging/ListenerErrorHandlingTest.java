package io.varpulis.messaging;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.dlq.DeadLetterQuery;
import io.varpulis.dlq.ParkedEvent;
import io.varpulis.health.DeliveryContainersHealthIndicator;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.transport.ParkReason;
import io.nats.client.Nats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.io.IOException;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener's container on a real nats-server never dies in silence and handles errors
 * as a Spring Kafka team expects (SPEC section 18, issue 40): what a service plugs in and
 * throws (an observation handler, a converter, the method with an {@code Error}) costs a
 * retry, never the consumer; a method that never returns is reported and released to
 * another instance; a poison's deliveries follow its exponential back-off; an error
 * handler parks at once.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class ListenerErrorHandlingTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final int ORDERS = 200;

    record Order(String id, int amount) {
    }

    static class Orders {

        final Set<String> processed = ConcurrentHashMap.newKeySet();

        final List<Long> attemptsAt = new CopyOnWriteArrayList<>();

        final AtomicInteger calls = new AtomicInteger();

        volatile String hangOn;

        final CountDownLatch release = new CountDownLatch(1);

        @NatsListener(id = "orders", subject = "orders.>")
        void on(Order order, DeliveryMetadata delivery) throws InterruptedException {
            if (order.id().equals(hangOn)) {
                release.await();
            }
            if (order.id().startsWith("poison")) {
                attemptsAt.add(System.nanoTime());
                throw new IllegalStateException("cannot apply " + order.id() + " (attempt " + delivery.attempt() + ")");
            }
            if (order.id().startsWith("invalid")) {
                throw new IllegalArgumentException("invalid order " + order.id());
            }
            if (order.id().startsWith("error") && calls.incrementAndGet() % 10 == 0) {
                throw new AssertionError("an Error subclass from the listener on " + order.id());
            }
            processed.add(order.id());
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        Orders orders() {
            return new Orders();
        }

    }

    /** Each test on an empty server: its streams and the DLQ made again. */
    @AfterEach
    void deleteStreams() throws Exception {
        try (Connection connection = Nats.connect(nats.url())) {
            JetStreamManagement jsm = connection.jetStreamManagement();
            for (String stream : jsm.getStreamNames()) {
                jsm.deleteStream(stream);
            }
        }
    }

    private ApplicationContextRunner runner(String stream) {
        return new ApplicationContextRunner().withUserConfiguration(Service.class)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams." + stream + ".subjects=orders.>",
                    "varpulis.nats.listeners.orders.backoff.delay=100ms",
                    "management.tracing.export.zipkin.enabled=false");
    }

    private static void publish(ConfigurableApplicationContext context, String prefix, int count) throws Exception {
        NatsTemplate template = context.getBean(NatsTemplate.class);
        for (int i = 0; i < count; i++) {
            template.send("orders." + i, new Order(prefix + i, i)).get();
        }
    }

    private static void drained(ConfigurableApplicationContext context, String stream) {
        JetStreamManagement jsm = management(context);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            ConsumerInfo info = jsm.getConsumerInfo(stream, "orders");
            assertThat(info.getNumPending()).isZero();
            assertThat(info.getNumAckPending()).isZero();
        });
    }

    private static JetStreamManagement management(ConfigurableApplicationContext context) {
        try {
            return context.getBean(Connection.class).jetStreamManagement();
        }
        catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anObservationHandlerThatThrowsOnEveryTenthReceive_costsNoOrder() {
        runner("OBS")
            .withPropertyValues("varpulis.nats.observation-enabled=true", "management.tracing.sampling.probability=1.0")
            .withBean("buggyExporter", ObservationHandler.class, () -> new ObservationHandler<Observation.Context>() {
                private final AtomicInteger seen = new AtomicInteger();

                @Override
                public void onStart(Observation.Context context) {
                    if (context.getName().contains("process") && seen.incrementAndGet() % 10 == 0) {
                        throw new IllegalStateException("exporter bug on receive " + seen.get());
                    }
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            })
            .run(context -> {
                assertThat(context).hasNotFailed();
                publish(context, "o", ORDERS);
                drained(context, "OBS");
                assertThat(context.getBean(Orders.class).processed).hasSize(ORDERS);
            });
    }

    @Test
    void aConverterThatThrowsOnEveryTenthPayload_costsARetry_notAnOrder() {
        runner("CONV").withBean(PayloadConverter.class,
                () -> new PayloadConverter(new com.fasterxml.jackson.databind.ObjectMapper()) {
                    private final AtomicInteger reads = new AtomicInteger();

                    @Override
                    public Object read(byte[] data, Type type) throws IOException {
                        if (reads.incrementAndGet() % 10 == 0) {
                            throw new IllegalStateException("converter bug on read " + reads.get());
                        }
                        return super.read(data, type);
                    }
                })
            .run(context -> {
                assertThat(context).hasNotFailed();
                publish(context, "o", ORDERS);
                drained(context, "CONV");
                assertThat(context.getBean(Orders.class).processed).hasSize(ORDERS);
                assertThat(context.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                    .get("varpulis.consumer.errors")
                    .tags("unit", "orders", "stage", "converter")
                    .counter()
                    .count()).isGreaterThanOrEqualTo(ORDERS / 10);
            });
    }

    @Test
    void aListenerThatThrowsAnErrorSubclass_costsARetry_notTheConsumer() {
        runner("ERR").run(context -> {
            assertThat(context).hasNotFailed();
            publish(context, "error", ORDERS);
            drained(context, "ERR");
            assertThat(context.getBean(Orders.class).processed).hasSize(ORDERS);
        });
    }

    @Test
    void aPoisonsDeliveriesFollowItsExponentialBackOff_thenItIsParked() {
        runner("POISON")
            .withPropertyValues("varpulis.nats.listeners.orders.backoff.delay=1s",
                    "varpulis.nats.listeners.orders.backoff.multiplier=2",
                    "varpulis.nats.listeners.orders.backoff.max-delay=8s")
            .run(context -> {
                assertThat(context).hasNotFailed();
                publish(context, "poison", 1);
                DeadLetterConsole console = context.getBean(DeadLetterConsole.class);
                await().atMost(Duration.ofSeconds(40))
                    .untilAsserted(() -> assertThat(console.list(DeadLetterQuery.all()).events()).hasSize(1));
                List<Long> at = context.getBean(Orders.class).attemptsAt;
                assertThat(at).hasSize(5);
                long[] expected = { 1000, 2000, 4000, 8000 };
                for (int i = 0; i < expected.length; i++) {
                    long gap = Duration.ofNanos(at.get(i + 1) - at.get(i)).toMillis();
                    assertThat(gap).as("gap before delivery " + (i + 2))
                        .isBetween((long) (expected[i] * 0.8), (long) (expected[i] * 1.2));
                }
                ParkedEvent parked = console.list(DeadLetterQuery.all()).events().get(0);
                assertThat(parked.envelope()).containsEntry("attempts", 5)
                    .containsEntry("reason", ParkReason.MAX_DELIVER.tag());
            });
    }

    @Test
    void anErrorHandlerParksAnIllegalArgumentExceptionOnItsFirstDelivery() {
        runner("HANDLED").withBean(NatsListenerErrorHandler.class,
                () -> failure -> failure.exception() instanceof IllegalArgumentException ? ErrorAction.park()
                        : ErrorAction.retry())
            .run(context -> {
                assertThat(context).hasNotFailed();
                publish(context, "invalid", 1);
                DeadLetterConsole console = context.getBean(DeadLetterConsole.class);
                await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(console.list(DeadLetterQuery.all()).events()).hasSize(1));
                ParkedEvent parked = console.list(DeadLetterQuery.all()).events().get(0);
                assertThat(parked.envelope()).containsEntry("attempts", 1)
                    .containsEntry("reason", ParkReason.UNPROCESSABLE.tag());
            });
    }

    @Test
    void aListenerThatNeverReturns_isReportedWithinItsBound_andAnotherInstanceAppliesTheMessage(CapturedOutput output) {
        ApplicationContextRunner instance = runner("HUNG").withPropertyValues(
                "varpulis.nats.listeners.orders.apply-timeout=3s", "varpulis.nats.listeners.orders.max-deliver=10");
        instance.run(first -> {
            assertThat(first).hasNotFailed();
            Orders hanging = first.getBean(Orders.class);
            hanging.hangOn = "h7";
            publish(first, "h", 20);
            await().atMost(Duration.ofSeconds(10)).until(() -> hanging.processed.size() == 7);
            instance.run(second -> {
                assertThat(second).hasNotFailed();
                Orders other = second.getBean(Orders.class);
                await().atMost(Duration.ofSeconds(30))
                    .until(() -> hanging.processed.size() + other.processed.size() >= 20);
                assertThat(other.processed).contains("h7");
                assertThat(hanging.processed).doesNotContain("h7");
                assertThat(output)
                    .containsPattern("orders.*sequence 8\\).*not applied within the apply timeout of 3 s");
                assertThat(first.getBean(DeliveryContainersHealthIndicator.class).health(true).getStatus())
                    .isEqualTo(Status.DOWN);
                assertThat(first.getBean(DeadLetterConsole.class).list(DeadLetterQuery.all()).events()).isEmpty();
                drained(second, "HUNG");
            });
            hanging.release.countDown();
            await().atMost(Duration.ofSeconds(5))
                .until(() -> first.getBean(DeliveryContainersHealthIndicator.class)
                    .health(true)
                    .getStatus()
                    .equals(Status.UP));
        });
    }

}
