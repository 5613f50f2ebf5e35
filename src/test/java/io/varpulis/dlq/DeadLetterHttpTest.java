package io.varpulis.dlq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.VarpulisClusterApplication;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestCredentials;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

import java.time.Duration;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole node on the jetstream substrate: the DLQ console served by the Actuator
 * endpoint {@code dlq} (exposed by the jar's application.yml) and by the coordinator's
 * API under {@code /api/v1/cluster/dlq}, with the publish latency and DLQ depth meters on
 * {@code /actuator/prometheus}. The node is started as {@code java -jar} would, with
 * {@link SpringApplication} (no test context: what is checked is the jar's own
 * configuration).
 */
@BrokerTest
class DeadLetterHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static SubstrateFixture operator;

    private static ConfigurableApplicationContext node;

    private static TestRestTemplate http;

    private static long enrich;

    private static long detect;

    @BeforeAll
    static void startNode() throws Exception {
        operator = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM);
        ParkedEvents envelopes = new ParkedEvents(operator);
        enrich = envelopes.park("enrich", "e1");
        detect = envelopes.park("detect", "d1");
        node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.coordinator-id=ops-http", "varpulis.cluster.worker-id=ops-http-w",
                    "varpulis.dlq.write-enabled=true", "spring.security.user.password=" + TestCredentials.PASSWORD)
            .run();
        int port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        http = new TestRestTemplate(new RestTemplateBuilder().baseUri("http://127.0.0.1:" + port)
            .basicAuthentication(TestCredentials.USER, TestCredentials.PASSWORD));
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
        }
        operator.close();
    }

    @Test
    void parkedEventsAreListedAndShownOnTheActuatorAndTheClusterApi_andWritesAnswerWithReports() {
        JsonNode list = get("/actuator/dlq", HttpStatus.OK);
        assertThat(sequences(list.get("events"))).containsExactly(detect, enrich);
        assertThat(list.get("depth").asLong()).isEqualTo(2);

        JsonNode shown = get("/actuator/dlq/" + enrich, HttpStatus.OK);
        assertThat(shown.get("subject").asText()).isEqualTo("varpulis.dlq.enrich");
        assertThat(shown.get("envelope").get("unit").asText()).isEqualTo("enrich");
        assertThat(shown.get("envelope").get("attempts").asLong()).isEqualTo(5);
        assertThat(get("/api/v1/cluster/dlq/" + enrich, HttpStatus.OK)).isEqualTo(shown);
        assertThat(sequences(get("/api/v1/cluster/dlq?unit=detect&limit=10", HttpStatus.OK).get("events")))
            .containsExactly(detect);

        JsonNode replayed = send(HttpMethod.POST, "/actuator/dlq", "{\"sequence\": " + enrich + "}", HttpStatus.OK);
        assertThat(replayed.get("replayed_count").asInt()).isEqualTo(1);
        assertThat(replayed.get("replayed").get(0).get("stream").asText()).isEqualTo(VarpulisJetStream.ROUTING_STREAM);
        JsonNode purged = send(HttpMethod.DELETE, "/api/v1/cluster/dlq?unit=detect", null, HttpStatus.OK);
        assertThat(purged.get("purged").asLong()).isEqualTo(1);
        assertThat(get("/api/v1/cluster/dlq", HttpStatus.OK).get("events")).isEmpty();
    }

    @Test
    void badRequestsAndUnknownSequencesAnswerWithAnErrorBody() {
        assertThat(get("/api/v1/cluster/dlq/999999", HttpStatus.NOT_FOUND).get("error").asText()).contains("999999");
        assertThat(get("/actuator/dlq/999999", HttpStatus.NOT_FOUND).get("error").asText()).contains("999999");
        assertThat(get("/api/v1/cluster/dlq?since=yesterday", HttpStatus.BAD_REQUEST).get("error").asText())
            .contains("since");
        assertThat(get("/actuator/dlq?limit=100000", HttpStatus.BAD_REQUEST).get("error").asText())
            .contains("max-page-size");
        assertThat(
                send(HttpMethod.POST, "/api/v1/cluster/dlq/replay", "{}", HttpStatus.BAD_REQUEST).get("error").asText())
            .contains("exactly one");
        assertThat(send(HttpMethod.POST, "/actuator/dlq", "{\"unit\": \"x\", \"all\": true}", HttpStatus.BAD_REQUEST)
            .get("error")
            .asText()).contains("exactly one");
        assertThat(send(HttpMethod.DELETE, "/api/v1/cluster/dlq", null, HttpStatus.BAD_REQUEST).get("error").asText())
            .contains("query parameter 'unit' is required")
            .doesNotContain("method parameter");
        // Stream sequences start at 1: a sequence below is the caller's mistake (400),
        // not JetStream away (503).
        assertThat(get("/api/v1/cluster/dlq/0", HttpStatus.BAD_REQUEST).get("error").asText()).contains("start at 1");
        assertThat(get("/actuator/dlq/-1", HttpStatus.BAD_REQUEST).get("error").asText()).contains("start at 1");
        assertThat(
                send(HttpMethod.DELETE, "/api/v1/cluster/dlq/-1", null, HttpStatus.BAD_REQUEST).get("error").asText())
            .contains("start at 1");
        assertThat(send(HttpMethod.DELETE, "/actuator/dlq/-1", null, HttpStatus.BAD_REQUEST).get("error").asText())
            .contains("start at 1");
        assertThat(send(HttpMethod.POST, "/actuator/dlq", "{\"sequence\": 0}", HttpStatus.BAD_REQUEST).get("error")
            .asText()).contains("start at 1");
        assertThat(send(HttpMethod.POST, "/api/v1/cluster/dlq/replay", "{\"sequence\": 0}", HttpStatus.BAD_REQUEST)
            .get("error")
            .asText()).contains("start at 1");
    }

    @Test
    void prometheusShowsPublishLatencyAndDlqDepth() {
        new ParkedEvents(operator).park("metrics", "m1");
        JsonNode report = send(HttpMethod.POST, "/api/v1/cluster/dlq/replay", "{\"unit\": \"metrics\"}", HttpStatus.OK);
        assertThat(report.get("replayed_count").asInt()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            String scrape = http.getForObject("/actuator/prometheus", String.class);
            assertThat(scrape).contains("varpulis_dlq_depth{stream=\"VARPULIS_DLQ\"}")
                .contains("varpulis_consumer_ack_pending{consumer=\"hb_ops-http\"}")
                .contains("varpulis_events_publish_seconds_bucket{kind=\"route\",outcome=\"confirmed\",le=")
                .contains("varpulis_events_publish_seconds_count{kind=\"heartbeat\",outcome=\"confirmed\"}");
        });
    }

    private JsonNode get(String path, HttpStatus expected) {
        return send(HttpMethod.GET, path, null, expected);
    }

    private JsonNode send(HttpMethod method, String path, String body, HttpStatus expected) {
        HttpHeaders headers = new HttpHeaders();
        headers.setContentType(MediaType.APPLICATION_JSON);
        ResponseEntity<String> response = http.exchange(path, method, new HttpEntity<>(body, headers), String.class);
        assertThat(response.getStatusCode()).as(method + " " + path + " -> " + response.getBody()).isEqualTo(expected);
        try {
            return JSON.readTree(response.getBody() == null ? "null" : response.getBody());
        }
        catch (java.io.IOException e) {
            throw new AssertionError(method + " " + path + " answered non-JSON: " + response.getBody(), e);
        }
    }

    private static long[] sequences(JsonNode events) {
        return StreamSupport.stream(events.spliterator(), false).mapToLong(e -> e.get("sequence").asLong()).toArray();
    }

}
