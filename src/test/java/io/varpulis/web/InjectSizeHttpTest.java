package io.varpulis.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.VarpulisClusterApplication;
import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC section 10, "a body over the limit is 413, never 503", on a server whose
 * {@code max_payload} (8 KB) is below {@code varpulis.security.max-request-size} (1 MB):
 * a body the node reads but that NATS can never store, alone or with its
 * {@code Nats-Msg-Id} header, is 413 naming both sizes, not "503, retry"; the node warns
 * at startup that its limit is above the server's.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class InjectSizeHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static final int MAX_PAYLOAD = 8192;

    private static final String GROUP = "sized";

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream().withConfig("max_payload: " + MAX_PAYLOAD + "\n");

    @Test
    void anEventNatsCanNeverStoreIs413NamingBothSizes_neverServiceUnavailable(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "server.address=127.0.0.1", "varpulis.nats.url=" + nats.url(),
                    "varpulis.nats.substrate=jetstream", "varpulis.cluster.coordinator-id=sized",
                    "varpulis.cluster.worker-id=sized-w", "spring.main.banner-mode=off",
                    "spring.security.user.password=" + TestCredentials.PASSWORD)
            .run()) {
            int port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            assertThat(post(port, "/api/v1/cluster/pipeline-groups",
                    "{\"name\": \"" + GROUP + "\", \"pipelines\": "
                            + "[{\"name\": \"p\", \"processor\": {\"type\": \"passthrough\"}}], \"routes\": "
                            + "[{\"from_pipeline\": \"_external\", \"to_pipeline\": \"p\"}]}")
                .statusCode()).isEqualTo(201);
            String inject = "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject";
            EventCodec codec = node.getBean(EventCodec.class);

            HttpResponse<String> large = post(port, inject, event(codec, 20_000));
            assertThat(large.statusCode()).as(large.body()).isEqualTo(413);
            assertThat(JSON.readTree(large.body()).get("error").asText()).contains("max_payload " + MAX_PAYLOAD,
                    "2000");

            // The JSON alone fits; with its Nats-Msg-Id header it does not.
            HttpResponse<String> withHeader = post(port, inject, event(codec, MAX_PAYLOAD - 10));
            assertThat(withHeader.statusCode()).as(withHeader.body()).isEqualTo(413);
            JsonNode refused = JSON.readTree(withHeader.body());
            assertThat(refused.get("error").asText()).contains((MAX_PAYLOAD - 10) + " bytes", "Nats-Msg-Id");
            assertThat(output).contains("refused: inject Probe into group " + GROUP);

            // It would be stored, but could not be parked with its envelope's headers
            // beside it.
            HttpResponse<String> noRoomToPark = post(port, inject, event(codec, MAX_PAYLOAD - 300));
            assertThat(noRoomToPark.statusCode()).as(noRoomToPark.body()).isEqualTo(413);
            assertThat(JSON.readTree(noRoomToPark.body()).get("error").asText()).contains("death envelope",
                    DeadLetterParker.RAW_FORM_HEADER_RESERVE + " must stay free");

            HttpResponse<String> fits = post(port, inject,
                    event(codec, MAX_PAYLOAD - DeadLetterParker.RAW_FORM_HEADER_RESERVE - 200));
            assertThat(fits.statusCode()).as(fits.body()).isEqualTo(202);
            assertThat(output).as("warned at startup")
                .contains("varpulis.security.max-request-size (1048576 bytes) "
                        + "is above the NATS server's max_payload (" + MAX_PAYLOAD + " bytes)");
        }
    }

    /**
     * An event body whose encoded form (what is published) is {@code encodedSize} bytes.
     */
    private static String event(EventCodec codec, int encodedSize) throws Exception {
        int overhead = codec.encode(new Event("Probe", null, Map.of("blob", ""))).length;
        String body = JSON.writeValueAsString(
                Map.of("event_type", "Probe", "fields", Map.of("blob", "x".repeat(encodedSize - overhead))));
        assertThat(codec.encode(JSON.readValue(body, Event.class)).length).isEqualTo(encodedSize);
        return body;
    }

    private static HttpResponse<String> post(int port, String path, String json) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Authorization", TestCredentials.adminBasic())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .timeout(Duration.ofSeconds(20))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

}
