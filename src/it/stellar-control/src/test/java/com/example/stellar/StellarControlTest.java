package com.example.stellar;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.dlq.Caller;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.dlq.DeadLetterQuery;
import io.varpulis.dlq.ParkedEvent;
import io.varpulis.dlq.ReplayRequest;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.messaging.NatsListenerContainer;
import io.varpulis.messaging.NatsListenerEndpointRegistry;
import io.varpulis.messaging.NatsTemplate;
import io.varpulis.messaging.OutboundEvent;
import io.varpulis.nats.Substrate;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aot.AotDetector;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The service, built against the installed io.varpulis:varpulis-cluster, on real nats-servers its tests start. The
 * invoker build runs these tests on the service processed ahead of time ({@code spring-boot:process-aot},
 * {@code -Dspring.aot.enabled=true}); {@code ./mvnw verify} in this folder runs them on the JVM as it is.
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
    void startsWithTheSubstrateAndItsListenersApplyEachCommandOnceAndParkPoisonAndMalformedOnes() throws Exception {
        try (ConfigurableApplicationContext app = start(
                "--varpulis.nats.url=" + nats.url(), "--varpulis.dlq.write-enabled=true")) {
            assertThat(app.getBean(NatsListenerEndpointRegistry.class).getListenerContainers())
                    .allSatisfy(c -> assertThat(c.isRunning()).isTrue())
                    .extracting(NatsListenerContainer::id).containsExactlyInAnyOrder("tc-submit", "tc-audit", "tc-archive", "tc-query");
            assertThat(app.getBeansOfType(ClusterTransport.class)).hasSize(1);
            assertThat(app.getBeansOfType(JetStreamAdmin.class)).hasSize(1);
            assertThat(app.getBeansOfType(DeadLetterParker.class)).hasSize(1);

            // A service gets what it declares: its four streams and the DLQ its listeners park into, nothing
            // reserved beyond what it asked for (none declares max_bytes), no cluster stream, bucket or consumer.
            JetStreamManagement jsm = app.getBean(Connection.class).jetStreamManagement();
            assertThat(jsm.getStreamNames()).containsExactlyInAnyOrder(
                    "TC_COMMANDS", "TC_EVENTS", "TC_QUERIES", "TC_REPLIES", "VARPULIS_DLQ");
            assertThat(jsm.getAccountStatistics().getReservedStorage()).isZero();

            GroundStation ground = app.getBean(GroundStation.class);
            for (int i = 1; i <= 10; i++) {
                ground.submit(new Telecommand("tc-" + i, "sat-1", "PING"), "ops-1").get();
            }
            assertThat(ground.submit(new Telecommand("tc-1", "sat-1", "PING"), "ops-1").get().duplicate()).isTrue();
            // The service's own ObjectMapper bean (PayloadJson) writes the template's payloads: snake_case, no nulls.
            assertThat(new String(jsm.getLastMessage("TC_COMMANDS", "stellar.tc.submit.sat-1").getData()))
                    .isEqualTo("{\"tc_id\":\"tc-10\",\"target\":\"sat-1\",\"command\":\"PING\"}");
            NatsTemplate template = app.getBean(NatsTemplate.class);
            template.send(OutboundEvent.to("stellar.tc.submit.lost-7", new Telecommand("tc-poison", "lost-7", "PING"))
                    .withMessageId("tc-poison")).get();
            template.send("stellar.tc.submit.retired-2", new Telecommand("tc-retired", "retired-2", "PING")).get();
            template.send("stellar.tc.submit.sat-1", "{\"tc_id\": \"tc-malformed\", ").get();
            template.send("stellar.tc.submit.sat-1", new Telecommand("tc-incomplete", null, "PING")).get();

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(jsm.getStreamInfo("TC_EVENTS").getStreamState().getMsgCount()).isEqualTo(10));
            // ... and reads and writes the listener's: tc_id read into tcId, the reply written snake_case.
            MessageInfo event = jsm.getLastMessage("TC_EVENTS", "stellar.tc.evt.sat-1.tc-3");
            assertThat(new String(event.getData())).isEqualTo(
                    "{\"tc_id\":\"tc-3\",\"target\":\"sat-1\",\"command\":\"PING\",\"status\":\"SENT\",\"attempt\":1}");
            assertThat(event.getHeaders().getFirst("Operator")).isEqualTo("ops-1");
            TelecommandAudit audit = app.getBean(TelecommandAudit.class);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    IntStream.rangeClosed(1, 10).allMatch(i -> audit.wasSent("tc-" + i)));
            TelecommandArchive archive = app.getBean(TelecommandArchive.class);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    IntStream.rangeClosed(1, 10).allMatch(i -> archive.sequenceOf("tc-" + i) != null));
            // Request-reply: the query and its answer are stored (TC_QUERIES, TC_REPLIES), answered within 2 s.
            assertThat(ground.wasSent("tc-3").get()).isTrue();
            assertThat(ground.wasSent("tc-never").get()).isFalse();

            DeadLetterConsole console = app.getBean(DeadLetterConsole.class);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                    assertThat(console.list(DeadLetterQuery.all()).events()).hasSize(4));
            List<ParkedEvent> parked = console.list(DeadLetterQuery.all()).events();
            // The retired target's: parked at once by the service's error handler (TelecommandErrors).
            assertThat(parked).extracting(p -> p.envelope().get("reason") + "@" + p.envelope().get("attempts"))
                    .containsExactlyInAnyOrder("max_deliver@5", "undecodable@1", "unprocessable@1", "unprocessable@1");
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
                            .hasSize(4).doesNotContain("undecodable@" + malformed.sequence())
                            .anyMatch(p -> p.startsWith("undecodable@")));
        }
    }

    @Test
    void withTheSubstrateLeftAtItsDefaultItRefusesToStartNamingTheProperty() {
        assertThatThrownBy(() -> start(
                "--spring.config.location=classpath:/implicit-core.yml", "--varpulis.nats.url=" + nats.url())
                .close())
                .satisfies(e -> assertThat(rootMessage(e)).contains("varpulis.nats.substrate=jetstream",
                        "@NatsListener", "tc-submit", "fire-and-forget"));
    }

    @Test
    void itRunsFromTheCodeSpringAotGeneratedWhenAotIsOn() throws Exception {
        assertThat(Class.forName(StellarControlApplication.class.getName() + "__ApplicationContextInitializer"))
                .as("spring-boot:process-aot ran").isNotNull();
        assertThat(AotDetector.useGeneratedArtifacts()).isEqualTo(Boolean.getBoolean("spring.aot.enabled"));
    }

    @Test
    void withoutSpringTheTransportPublishesAndReturnsThePubAck() throws Exception {
        String json = "{\"tc_id\":\"tc-plain\",\"target\":\"sat-9\",\"command\":\"PING\"}";
        try (NatsServer server = NatsServer.start(true); Connection admin = Nats.connect(server.url())) {
            admin.jetStreamManagement().addStream(StreamConfiguration.builder().name("TC_COMMANDS")
                    .subjects("stellar.tc.submit.>").build());
            // tag::without-spring[]
            Connection nc = Nats.connect(server.url());
            ClusterTransport transport = ClusterTransports.create(nc, Substrate.JETSTREAM);   // fails if JetStream is off
            PublishReceipt receipt = transport.publish(OutboundMessage.of("stellar.tc.submit.sat-9", json)).get();
            // end::without-spring[]
            assertThat(receipt.stream()).isEqualTo("TC_COMMANDS");
            transport.close();
            nc.close();
        }
    }

    @Test
    void itsClasspathHoldsNoWebServerSpringMvcSpringSecurityClusterNodeDemoOrValidator() {
        for (String absent : List.of("org.apache.catalina.startup.Tomcat",
                "org.springframework.web.servlet.DispatcherServlet",
                "org.springframework.security.web.SecurityFilterChain",
                "io.varpulis.cluster.coordinator.CoordinatorNode",
                "io.varpulis.web.ClusterApiController", "io.varpulis.demo.BruteForceDemo", "io.varpulis.bruteforce.BruteForceDetector",
                // Issue 44: nor the node's pipelines and route edges.
                "io.varpulis.pipeline.EventCodec", "io.varpulis.delivery.RouteIngress",
                // Issue 33: no Bean Validation provider from the library (nor the EL it would need).
                "org.hibernate.validator.HibernateValidator", "jakarta.el.ELManager")) {
            assertThatThrownBy(() -> Class.forName(absent)).as(absent).isInstanceOf(ClassNotFoundException.class);
        }
    }

    @Test
    void onJetStreamItRefusesToStartAgainstAServerWithoutJetStreamNamingTheFlag() throws Exception {
        try (NatsServer core = NatsServer.start(false)) {
            assertThatThrownBy(() -> start(
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

            try (ConfigurableApplicationContext second = start(
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
                "-XX:TieredStopAtLevel=1", "-Dspring.aot.enabled=" + System.getProperty("spring.aot.enabled", "false"),
                "-cp",
                System.getProperty("java.class.path"), StellarControlApplication.class.getName(),
                "--varpulis.nats.url=" + server.url(), "--stellar.uplink.latency=20ms",
                "--varpulis.nats.jetstream.consumer.ack-wait=2s")
                .redirectErrorStream(true).redirectOutput(new File("target/killed-service.log")).start();
    }

    /**
     * Starts the service through its main method, as {@code java -jar} would: in AOT mode Spring Boot finds the
     * generated initializer by the main class, which must be the service's (not the test runner's).
     */
    private static ConfigurableApplicationContext start(String... args) {
        return SpringApplication.from(StellarControlApplication::main).run(args).getApplicationContext();
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
