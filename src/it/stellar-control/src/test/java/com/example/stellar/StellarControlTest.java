package com.example.stellar;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.container.DeadLetterParker;
import io.varpulis.dlq.Caller;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.dlq.DeadLetterQuery;
import io.varpulis.dlq.ParkedEvent;
import io.varpulis.dlq.ReplayRequest;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.messaging.NatsListenerContainer;
import io.varpulis.messaging.NatsListenerRegistry;
import io.varpulis.messaging.NatsTemplate;
import io.varpulis.messaging.OutboundEvent;
import io.varpulis.transport.ClusterTransport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The service, built against the installed io.varpulis:varpulis-cluster, on real nats-servers its tests start.
 */
class StellarControlTest {

    private static NatsServer nats;

    @BeforeAll
    static void startNats() throws Exception {
        nats = NatsServer.start(true);
    }

    @AfterAll
    static void stopNats() throws Exception {
        nats.close();
    }

    @Test
    void startsWithTheSubstrateAndItsListenerAppliesEachCommandOnceAndParksPoisonAndMalformedOnes() throws Exception {
        try (ConfigurableApplicationContext app = SpringApplication.run(StellarControlApplication.class,
                "--varpulis.nats.url=" + nats.url(), "--varpulis.dlq.write-enabled=true")) {
            assertThat(app.getBean(NatsListenerRegistry.class).containers()).singleElement()
                    .satisfies(c -> assertThat(c.isRunning()).isTrue())
                    .extracting(NatsListenerContainer::id).isEqualTo("tc-submit");
            assertThat(app.getBeansOfType(ClusterTransport.class)).hasSize(1);
            assertThat(app.getBeansOfType(JetStreamAdmin.class)).hasSize(1);
            assertThat(app.getBeansOfType(DeadLetterParker.class)).hasSize(1);

            NatsTemplate template = app.getBean(NatsTemplate.class);
            for (int i = 1; i <= 10; i++) {
                template.send(OutboundEvent.to("stellar.tc.submit.sat-1", new Telecommand("tc-" + i, "sat-1", "PING"))
                        .withMessageId("tc-" + i)).get();
            }
            assertThat(template.send(OutboundEvent.to("stellar.tc.submit.sat-1",
                    new Telecommand("tc-1", "sat-1", "PING")).withMessageId("tc-1")).get().duplicate()).isTrue();
            template.send(OutboundEvent.to("stellar.tc.submit.lost-7", new Telecommand("tc-poison", "lost-7", "PING"))
                    .withMessageId("tc-poison")).get();
            template.send("stellar.tc.submit.sat-1", "{\"tc_id\": \"tc-malformed\", ").get();
            template.send("stellar.tc.submit.sat-1", new Telecommand("tc-incomplete", null, "PING")).get();

            JetStreamManagement jsm = app.getBean(Connection.class).jetStreamManagement();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(jsm.getStreamInfo("TC_EVENTS").getStreamState().getMsgCount()).isEqualTo(10));
            assertThat(new String(jsm.getLastMessage("TC_EVENTS", "stellar.tc.evt.sat-1.tc-3").getData()))
                    .isEqualTo("{\"tc_id\":\"tc-3\",\"target\":\"sat-1\",\"command\":\"PING\",\"status\":\"SENT\"}");

            DeadLetterConsole console = app.getBean(DeadLetterConsole.class);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                    assertThat(console.list(DeadLetterQuery.all()).events()).hasSize(3));
            List<ParkedEvent> parked = console.list(DeadLetterQuery.all()).events();
            assertThat(parked).extracting(p -> p.envelope().get("reason") + "@" + p.envelope().get("attempts"))
                    .containsExactlyInAnyOrder("max_deliver@5", "undecodable@1", "unprocessable@1");
            assertThat(parked).allSatisfy(p -> {
                assertThat(p.subject()).isEqualTo("varpulis.dlq.tc-submit");
                assertThat(p.envelope()).containsKeys("original_subject", "last_error", "stream_sequence");
            });
            ConsumerInfo consumer = jsm.getConsumerInfo("TC_COMMANDS", "tc-submit");
            assertThat(consumer.getNumPending()).isZero();
            assertThat(consumer.getNumAckPending()).isZero();

            // The console replays a parked command to its subject: still malformed, it is parked again.
            ParkedEvent malformed = parked.stream().filter(p -> "undecodable".equals(p.envelope().get("reason")))
                    .findFirst().orElseThrow();
            assertThat(console.replay(ReplayRequest.ofSequence(malformed.sequence()), Caller.anonymous())
                    .replayedCount()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(console.list(DeadLetterQuery.all()).events())
                            .extracting(p -> p.envelope().get("reason") + "@" + p.sequence())
                            .hasSize(3).doesNotContain("undecodable@" + malformed.sequence())
                            .anyMatch(p -> p.startsWith("undecodable@")));
        }
    }

    @Test
    void itsClasspathHoldsNoWebServerSpringMvcSpringSecurityClusterNodeOrDemo() {
        for (String absent : List.of("org.apache.catalina.startup.Tomcat",
                "org.springframework.web.servlet.DispatcherServlet",
                "org.springframework.security.web.SecurityFilterChain", "io.varpulis.cluster.CoordinatorNode",
                "io.varpulis.web.ClusterApiController", "io.varpulis.demo.BruteForceDemo")) {
            assertThatThrownBy(() -> Class.forName(absent)).as(absent).isInstanceOf(ClassNotFoundException.class);
        }
    }

    @Test
    void onJetStreamItRefusesToStartAgainstAServerWithoutJetStreamNamingTheFlag() throws Exception {
        try (NatsServer core = NatsServer.start(false)) {
            assertThatThrownBy(() -> SpringApplication.run(StellarControlApplication.class,
                    "--varpulis.nats.url=" + core.url(), "--varpulis.nats.startup-retry-timeout=1s").close())
                    .satisfies(e -> assertThat(rootMessage(e)).contains("-js"));
        }
    }

    @Test
    void aKillNineMidStreamLosesNothingAndStoresEachEventOnce() throws Exception {
        int commands = 200;
        try (NatsServer server = NatsServer.start(true); Connection nc = Nats.connect(server.url())) {
            Process first = service(server);
            JetStreamManagement jsm = nc.jetStreamManagement();
            await().atMost(Duration.ofSeconds(60)).until(() -> jsm.getStreamNames().contains("TC_COMMANDS"));
            for (int i = 1; i <= commands; i++) {
                String id = "kill-" + i;
                nc.jetStream().publish(io.nats.client.impl.NatsMessage.builder().subject("stellar.tc.submit.sat-2")
                        .headers(new io.nats.client.impl.Headers().add("Nats-Msg-Id", id))
                        .data("{\"tc_id\":\"" + id + "\",\"target\":\"sat-2\",\"command\":\"PING\"}").build());
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> events(jsm) >= 40);
            first.destroyForcibly().waitFor();
            long atKill = events(jsm);
            assertThat(atKill).isLessThan(commands);

            try (ConfigurableApplicationContext second = SpringApplication.run(StellarControlApplication.class,
                    "--varpulis.nats.url=" + server.url())) {
                await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                    ConsumerInfo consumer = jsm.getConsumerInfo("TC_COMMANDS", "tc-submit");
                    assertThat(consumer.getNumPending() + consumer.getNumAckPending()).isZero();
                    assertThat(events(jsm)).isEqualTo(commands);
                });
                for (int i = 1; i <= commands; i += 37) {
                    assertThat(jsm.getLastMessage("TC_EVENTS", "stellar.tc.evt.sat-2.kill-" + i)).isNotNull();
                }
            }
        }
    }

    /**
     * The service as its own JVM, to be killed: it applies a command every 20 ms, and creates the durable consumer
     * with a 2 s ack_wait, so that what it held when killed comes back soon to the service that takes over.
     */
    private static Process service(NatsServer server) throws Exception {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), StellarControlApplication.class.getName(),
                "--varpulis.nats.url=" + server.url(), "--stellar.uplink.latency=20ms",
                "--varpulis.nats.jetstream.consumer.ack-wait=2s")
                .redirectErrorStream(true).redirectOutput(new File("target/killed-service.log")).start();
    }

    private static long events(JetStreamManagement jsm) throws Exception {
        return jsm.getStreamNames().contains("TC_EVENTS")
                ? jsm.getStreamInfo("TC_EVENTS").getStreamState().getMsgCount() : 0;
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        StringBuilder all = new StringBuilder();
        while (root != null) {
            all.append(root.getMessage()).append('\n');
            root = root.getCause();
        }
        return all.toString();
    }
}
