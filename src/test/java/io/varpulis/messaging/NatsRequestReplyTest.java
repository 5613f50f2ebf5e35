package io.varpulis.messaging;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.api.MessageInfo;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.transport.Requester;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Request-reply on a real nats-server (SPEC section 19): {@code sendAndReceive} answered
 * by a {@code @NatsListener} that returns its reply, within a 2 s timeout, on core
 * (jnats' request-reply) and on jetstream (request and reply stored); a reply that does
 * not come fails with the subject and the timeout, a reply of the wrong shape with the
 * type, a missing reply stream with the fix; and a stored request outlives the restart of
 * the service that answers it.
 */
@BrokerTest
class NatsRequestReplyTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    record Quote(String item, int quantity) {
    }

    record Price(String item, long cents, long attempt) {
    }

    static class PriceListener {

        final CountDownLatch slow = new CountDownLatch(1);

        @NatsListener(id = "prices", subject = "t.price.>")
        Price price(Quote quote, DeliveryMetadata delivery) throws InterruptedException {
            if (quote.item().equals("slow")) {
                slow.await(10, TimeUnit.SECONDS);
            }
            return new Price(quote.item(), quote.quantity() * 250L, delivery.attempt());
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PriceService {

        @Bean
        PriceListener priceListener() {
            return new PriceListener();
        }

    }

    /** A service that only asks. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Buyer {

    }

    private static final String[] STREAMS = { "varpulis.nats.jetstream.streams.T_PRICE.subjects=t.price.>",
            "varpulis.nats.jetstream.streams.T_REPLY.subjects=varpulis.reply.>",
            "varpulis.nats.jetstream.streams.T_REPLY.max-age=10m" };

    private final ApplicationContextRunner service = new ApplicationContextRunner()
        .withUserConfiguration(PriceService.class)
        .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.listener-drain-timeout=500ms");

    /**
     * On core, subjects no stream captures: a stream that captures a request's subject
     * answers it with its PubAck (and keeps it for the jetstream tests' listener).
     */
    private ApplicationContextRunner onCore() {
        return service.withPropertyValues("varpulis.nats.substrate=core",
                "varpulis.nats.listeners.prices.subject=c.price.>");
    }

    @Test
    void onCoreAListenerAnswersWithinTheTimeout_andAnyNatsRequestIsAnsweredAlike() {
        onCore().run(context -> {
            assertThat(context).hasNotFailed();
            NatsTemplate template = context.getBean(NatsTemplate.class);
            assertThat(template.sendAndReceive("c.price.fruit", new Quote("apple", 3), Price.class, TIMEOUT).get())
                .isEqualTo(new Price("apple", 750, 1));

            Message plain = context.getBean(Connection.class)
                .request("c.price.fruit", "{\"item\":\"pear\",\"quantity\":2}".getBytes(StandardCharsets.UTF_8),
                        TIMEOUT);
            assertThat(new String(plain.getData(), StandardCharsets.UTF_8))
                .as("a plain core request (nats request) is answered too")
                .isEqualTo("{\"item\":\"pear\",\"cents\":500,\"attempt\":1}");
        });
    }

    @Test
    void onCoreAReplyThatDoesNotComeInTimeFailsNamingTheSubjectAndTheTimeout_andNoListenerFailsAtOnce() {
        onCore().run(context -> {
            NatsTemplate template = context.getBean(NatsTemplate.class);
            long start = System.nanoTime();
            CompletableFuture<Price> late = template.sendAndReceive("c.price.fruit", new Quote("slow", 1), Price.class,
                    Duration.ofMillis(300));
            assertThatThrownBy(late::get).isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(NatsReplyTimeoutException.class)
                .hasMessageContaining("c.price.fruit")
                .hasMessageContaining("300 ms");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("on time, not on jnats' 5 s cleanup sweep")
                .isLessThan(Duration.ofSeconds(2));
            context.getBean(PriceListener.class).slow.countDown();

            assertThatThrownBy(() -> template.sendAndReceive("t.nobody", new Quote("apple", 1), Price.class, TIMEOUT)
                .get(1, TimeUnit.SECONDS)).cause()
                .isInstanceOf(NatsReplyException.class)
                .hasMessageContaining("no responders");
        });
    }

    @Test
    void onJetStreamTheRequestAndItsReplyAreStored_andTheListenerAnswersWithinTheTimeout() {
        service.withPropertyValues("varpulis.nats.substrate=jetstream").withPropertyValues(STREAMS).run(context -> {
            assertThat(context).hasNotFailed();
            NatsTemplate template = context.getBean(NatsTemplate.class);
            Message reply = template
                .sendAndReceive(OutboundEvent.to("t.price.veg", new Quote("leek", 4)).withMessageId("q-1"), TIMEOUT)
                .get();
            assertThat(new String(reply.getData(), StandardCharsets.UTF_8))
                .isEqualTo("{\"item\":\"leek\",\"cents\":1000,\"attempt\":1}");
            assertThat(reply.getSubject()).startsWith("varpulis.reply.");
            assertThat(template.sendAndReceive("t.price.veg", new Quote("kale", 1), Price.class, TIMEOUT).get())
                .isEqualTo(new Price("kale", 250, 1));

            JetStreamManagement jsm = context.getBean(Connection.class).jetStreamManagement();
            MessageInfo request = jsm.getLastMessage("T_PRICE", "t.price.veg");
            assertThat(request.getHeaders().getFirst(Requester.REPLY_TO_HEADER)).startsWith("varpulis.reply.");
            MessageInfo stored = jsm.getLastMessage("T_REPLY", reply.getSubject());
            assertThat(stored.getHeaders().getFirst("Nats-Msg-Id")).as("a reply published again is stored once")
                .isEqualTo("q-1/reply");
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(jsm.getConsumerInfo("T_PRICE", "prices").getNumAckPending()).isZero());
        });
    }

    @Test
    void onJetStreamNoReplyInTimeFailsNamingTheSubjectAndTheTimeout_andAReplyOfAnotherShapeNamesTheType() {
        service.withPropertyValues("varpulis.nats.substrate=jetstream")
            .withPropertyValues(STREAMS)
            .withPropertyValues("varpulis.nats.jetstream.streams.T_QUIET.subjects=t.quiet.>")
            .run(context -> {
                NatsTemplate template = context.getBean(NatsTemplate.class);
                assertThatThrownBy(() -> template
                    .sendAndReceive("t.quiet.x", new Quote("apple", 1), Price.class, Duration.ofMillis(500))
                    .get()).cause()
                    .isInstanceOf(NatsReplyTimeoutException.class)
                    .hasMessageContaining("t.quiet.x")
                    .hasMessageContaining("500 ms");
                assertThat(context.getBean(Connection.class)
                    .jetStreamManagement()
                    .getStreamInfo("T_QUIET")
                    .getStreamState()
                    .getMsgCount()).as("the request was stored: a listener that comes later still gets it")
                    .isEqualTo(1);

                assertThatThrownBy(
                        () -> template.sendAndReceive("t.price.x", new Quote("fig", 1), Integer.class, TIMEOUT).get())
                    .cause()
                    .isInstanceOf(NatsReplyException.class)
                    .hasMessageContaining("cannot be read as java.lang.Integer");
            });
    }

    @Test
    void onJetStreamWithoutAStreamForTheRepliesTheRequestFailsNamingTheFix() throws Exception {
        try (Connection admin = io.nats.client.Nats.connect(nats.url())) {
            try {
                admin.jetStreamManagement().deleteStream("T_REPLY");
            }
            catch (JetStreamApiException absent) {
                // Not created yet by another test of this class.
            }
        }
        new ApplicationContextRunner().withUserConfiguration(Buyer.class)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams.T_PRICE.subjects=t.price.>")
            .run(context -> assertThatThrownBy(() -> context.getBean(NatsTemplate.class)
                .sendAndReceive("t.price.x", new Quote("fig", 1), Price.class, TIMEOUT)
                .get()).cause()
                .isInstanceOf(NatsReplyException.class)
                .hasMessageContaining("no stream capture")
                .hasMessageContaining("varpulis.nats.jetstream.streams.<NAME>.subjects: varpulis.reply.>"));
    }

    @Test
    void aStoredRequestOutlivesTheRestartOfTheServiceThatAnswersIt() {
        ApplicationContextRunner restarted = new ApplicationContextRunner().withUserConfiguration(Restarted.class)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams.T_RESTART.subjects=t.restart.>",
                    "varpulis.nats.jetstream.consumer.ack-wait=2s", "varpulis.nats.listener-drain-timeout=200ms");
        new ApplicationContextRunner().withUserConfiguration(Buyer.class)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream")
            .withPropertyValues(STREAMS)
            .run(asking -> {
                AtomicReference<CompletableFuture<Price>> reply = new AtomicReference<>();
                restarted.run(first -> {
                    assertThat(first).hasNotFailed();
                    reply.set(asking.getBean(NatsTemplate.class)
                        .sendAndReceive("t.restart.a", new Quote("plum", 2), Price.class, Duration.ofSeconds(30)));
                    RestartedListener listener = first.getBean(RestartedListener.class);
                    assertThat(listener.received.await(10, TimeUnit.SECONDS)).as("the first run got it").isTrue();
                    first.close();
                    listener.release.countDown();
                });
                assertThat(reply.get()).as("the requester still waits").isNotDone();
                restarted.run(second -> assertThat(reply.get().get(20, TimeUnit.SECONDS))
                    .isEqualTo(new Price("plum", 500, 2)));
            });
    }

    /** Answers on the second delivery; on the first, it is stopped before answering. */
    static class RestartedListener {

        final CountDownLatch received = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @NatsListener(id = "restarted", subject = "t.restart.>")
        Price price(Quote quote, DeliveryMetadata delivery) throws InterruptedException {
            if (delivery.attempt() == 1) {
                received.countDown();
                release.await(30, TimeUnit.SECONDS);
                throw new IllegalStateException("stopped before answering");
            }
            return new Price(quote.item(), quote.quantity() * 250L, delivery.attempt());
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Restarted {

        @Bean
        RestartedListener restartedListener() {
            return new RestartedListener();
        }

    }

}
