package io.varpulis.messaging;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.dlq.DeadLetterQuery;
import io.varpulis.dlq.ParkedEvent;
import io.varpulis.health.JetStreamHealthIndicator;
import io.varpulis.metrics.SubstrateMetrics;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.transport.PublishReceipt;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A service's {@code @NatsListener} on a real nats-server (SPEC section 13): commands
 * applied and each answered with one event stored once by its message id; a failing
 * command nak'ed and parked with its death envelope on its last delivery; a malformed one
 * and a not-retryable failure parked on the first; on core, the same method runs once and
 * nothing is retried.
 */
@BrokerTest
class NatsListenerTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    record Command(String id, String action) {
    }

    record Applied(String id, long attempt) {
    }

    static class Rejected extends RuntimeException {

        Rejected(String message) {
            super(message);
        }

    }

    static class CommandListener {

        final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

        @NatsListener(id = "commands", subject = "t.cmd.>", notRetryable = Rejected.class)
        OutboundEvent apply(Command command, DeliveryMetadata delivery, @NatsHeader("Origin") String origin) {
            calls.computeIfAbsent(command.id(), id -> new AtomicInteger()).incrementAndGet();
            switch (command.action()) {
                case "fail" -> throw new IllegalStateException("cannot apply " + command.id());
                case "reject" -> throw new Rejected("never valid: " + command.id());
                default -> {
                    return OutboundEvent.to("t.evt." + command.id(), new Applied(command.id(), delivery.attempt()))
                        .withMessageId(command.id())
                        .withHeader("Origin", String.valueOf(origin));
                }
            }
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        CommandListener commandListener() {
            return new CommandListener();
        }

    }

    private static final DeadLetterQuery COMMANDS = new DeadLetterQuery("commands", null, null, null, null);

    private static final DeadLetterQuery BAD = new DeadLetterQuery("bad", null, null, null, null);

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Service.class)
        .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.jetstream.streams.T_CMD.subjects=t.cmd.>",
                "varpulis.nats.jetstream.streams.T_EVT.subjects=t.evt.>",
                "varpulis.nats.jetstream.streams.T_EVT.duplicate-window=2m",
                "varpulis.nats.jetstream.consumer.nak-delay=100ms", "varpulis.nats.listeners.commands.max-deliver=3");

    @Test
    void appliesEachCommandOnceAndParksWhatCannotBeApplied() {
        runner.withPropertyValues("varpulis.nats.substrate=jetstream").run(context -> {
            assertThat(context).hasNotFailed();
            NatsTemplate template = context.getBean(NatsTemplate.class);
            CommandListener listener = context.getBean(CommandListener.class);
            assertThat(context.getBean(NatsListenerEndpointRegistry.class).getListenerContainers()).singleElement()
                .satisfies(c -> assertThat(c.consumer().stream()).isEqualTo("T_CMD"));

            PublishReceipt first = template
                .send(OutboundEvent.to("t.cmd.a", new Command("c1", "apply"))
                    .withMessageId("c1")
                    .withHeader("Origin", "ground"))
                .get();
            assertThat(first.stream()).isEqualTo("T_CMD");
            assertThat(template.send(OutboundEvent.to("t.cmd.a", new Command("c1", "apply")).withMessageId("c1"))
                .get()
                .duplicate()).isTrue();
            template.send("t.cmd.a", new Command("c2", "fail")).get();
            template.send("t.cmd.a", new Command("c3", "reject")).get();
            template.send("t.cmd.a", "{not json").get();
            template.send("t.cmd.a", new Command("c4", "apply")).get();

            DeadLetterConsole console = context.getBean(DeadLetterConsole.class);
            await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(console.list(COMMANDS).events()).hasSize(3));
            List<ParkedEvent> parked = console.list(COMMANDS).events();
            assertThat(parked).extracting(p -> p.envelope().get("reason") + "@" + p.envelope().get("attempts"))
                .containsExactlyInAnyOrder("max_deliver@3", "unprocessable@1", "undecodable@1");
            assertThat(parked).allSatisfy(p -> assertThat(p.envelope().get("unit")).isEqualTo("commands"));
            assertThat(listener.calls.get("c2")).hasValue(3);
            assertThat(listener.calls.get("c3")).hasValue(1);

            JetStreamManagement jsm = context.getBean(Connection.class).jetStreamManagement();
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(jsm.getStreamInfo("T_EVT").getStreamState().getMsgCount()).isEqualTo(2));
            assertThat(new String(jsm.getLastMessage("T_EVT", "t.evt.c1").getData()))
                .isEqualTo("{\"id\":\"c1\",\"attempt\":1}");
            assertThat(jsm.getLastMessage("T_EVT", "t.evt.c1").getHeaders().getFirst("Origin")).isEqualTo("ground");
            ConsumerInfo consumer = jsm.getConsumerInfo("T_CMD", "commands");
            assertThat(consumer.getNumPending()).isZero();
            assertThat(consumer.getNumAckPending()).isZero();
            await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(
                        context.getBean(JetStreamHealthIndicator.class).health(true).getDetails().get("consumers"))
                    .asInstanceOf(InstanceOfAssertFactories.MAP)
                    .containsEntry("commands", Map.of("pending", 0L, "ackPending", 0L, "redelivered", 0L)));
            SubstrateMetrics metrics = context.getBean(SubstrateMetrics.class);
            assertThat(metrics.count("varpulis.events.applied", "pipeline", "commands")).isEqualTo(2);
            assertThat(metrics.count("varpulis.events.redelivered", "pipeline", "commands")).isEqualTo(2);
            // Every reason's counter exists from the first apply on (at 0, so that rate()
            // sees the first park).
            assertThat(metrics.registry().find("varpulis.events.parked").tag("unit", "commands").counters())
                .filteredOn(c -> c.count() > 0)
                .extracting(c -> c.getId().getTag("reason") + "=" + c.count())
                .containsExactlyInAnyOrder("max_deliver=1.0", "unprocessable=1.0", "undecodable=1.0");
        });
    }

    @Test
    void onCoreTheMethodRunsOnceAndAFailureIsLost() {
        runner.withPropertyValues("varpulis.nats.substrate=core").run(context -> {
            assertThat(context).hasNotFailed();
            NatsTemplate template = context.getBean(NatsTemplate.class);
            CommandListener listener = context.getBean(CommandListener.class);
            template.send("t.cmd.a", new Command("k1", "fail")).get();
            template.send("t.cmd.a", new Command("k2", "apply")).get();
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(listener.calls).containsKeys("k1", "k2"));
            await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(2))
                .untilAsserted(() -> assertThat(listener.calls.get("k1")).hasValue(1));
            SubstrateMetrics metrics = context.getBean(SubstrateMetrics.class);
            assertThat(metrics.count("varpulis.events.parked", "unit", "commands")).isEqualTo(1);
        });
    }

    @Test
    void aValueReturnedForAMessageThatIsNotARequestWithoutSendToIsParkedNamingTheSetting() {
        runner.withUserConfiguration(BadService.class)
            .withPropertyValues("varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams.T_BAD.subjects=t.bad")
            .run(context -> {
                assertThat(context).hasNotFailed();
                context.getBean(NatsTemplate.class).send("t.bad", "not a request").get();
                DeadLetterConsole console = context.getBean(DeadLetterConsole.class);
                await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(console.list(BAD).events()).hasSize(1));
                ParkedEvent parked = console.list(BAD).events().get(0);
                assertThat(parked.envelope().get("reason") + "@" + parked.envelope().get("attempts"))
                    .as("no retry can give it a reply subject")
                    .isEqualTo("unprocessable@1");
                assertThat((String) parked.envelope().get("last_error"))
                    .contains("varpulis.nats.listeners.bad.send-to");
            });
    }

    static class BadListener {

        @NatsListener(id = "bad", subject = "t.bad")
        String answer(String text) {
            return text;
        }

    }

    @SpringBootConfiguration
    static class BadService {

        @Bean
        BadListener badListener() {
            return new BadListener();
        }

    }

}
