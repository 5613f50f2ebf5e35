package io.varpulis.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import io.varpulis.VarpulisClusterApplication;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.Subjects;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCredentials;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 15: every injection has an id, answered in the 202 and in the 503, so a retry is
 * always safe. An injection during a NATS outage is answered 503 with its id; the event
 * is stored once NATS is back (jnats had buffered it); the operator's retry with that id
 * stores nothing twice (the routing stream's 2-minute duplicate window).
 */
@BrokerTest
class InjectRetryHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static final String GROUP = "retry";

    private static final String SUBJECT = Subjects.route(GROUP, Subjects.EXTERNAL, "p");

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static ConfigurableApplicationContext node;

    private static int port;

    @BeforeAll
    static void startNode() throws Exception {
        node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "server.address=127.0.0.1", "varpulis.nats.url=" + nats.url(),
                    "varpulis.nats.substrate=jetstream", "varpulis.nats.reconnect-wait=200ms",
                    "varpulis.nats.jetstream.publish-timeout=2s", "varpulis.cluster.coordinator-id=retry-http",
                    "varpulis.cluster.worker-id=retry-http-w", "spring.main.banner-mode=off",
                    "spring.security.user.password=" + TestCredentials.PASSWORD)
            .run();
        port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        HttpResponse<String> declared = post("/api/v1/cluster/pipeline-groups",
                "{\"name\": \"" + GROUP
                        + "\", \"pipelines\": [{\"name\": \"p\", \"processor\": {\"type\": \"passthrough\"}}], "
                        + "\"routes\": [{\"from_pipeline\": \"_external\", \"to_pipeline\": \"p\"}]}");
        assertThat(declared.statusCode()).as(declared.body()).isEqualTo(201);
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void anInjectionDuringAnOutageIs503WithItsId_isStoredOnceNatsIsBack_andItsRetryStoresNothingTwice()
            throws Exception {
        String event = "{\"event_type\": \"Outage\", \"fields\": {\"n\": 1}}";
        String path = "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject";
        nats.stop();
        HttpResponse<String> during = post(path, event);
        assertThat(during.statusCode()).as(during.body()).isEqualTo(503);
        JsonNode refused = JSON.readTree(during.body());
        String id = refused.get("id").asText();
        assertThat(id).isNotBlank();
        assertThat(refused.get("error").asText()).contains("?id=" + id);

        nats.start();
        await().atMost(Duration.ofSeconds(30))
            .untilAsserted(() -> assertThat(stored()).as("stored once NATS is back").isEqualTo(1));

        HttpResponse<String> retry = post(path + "?id=" + id, event);
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(202);
        assertThat(JSON.readTree(retry.body()).get("id").asText()).isEqualTo(id);
        assertThat(stored()).as("the retry with the same id stored nothing twice").isEqualTo(1);

        HttpResponse<String> another = post(path, event);
        assertThat(another.statusCode()).isEqualTo(202);
        assertThat(JSON.readTree(another.body()).get("id").asText()).as("a new injection, a new id").isNotEqualTo(id);
        assertThat(stored()).isEqualTo(2);
    }

    private static long stored() throws Exception {
        try (Connection connection = Nats.connect(nats.url())) {
            return connection.jetStreamManagement()
                .getStreamInfo(VarpulisJetStream.ROUTING_STREAM, StreamInfoOptions.filterSubjects(SUBJECT))
                .getStreamState()
                .getSubjects()
                .stream()
                .filter(s -> s.getName().equals(SUBJECT))
                .mapToLong(Subject::getCount)
                .sum();
        }
    }

    private static HttpResponse<String> post(String path, String json) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Authorization", TestCredentials.adminBasic())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .timeout(Duration.ofSeconds(20))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

}
