package io.varpulis.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.VarpulisClusterApplication;
import io.varpulis.dlq.ParkedEvents;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestJwts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC section 10 over real HTTP: a standalone node on the jetstream substrate, started
 * as {@code java -jar} would (the jar's application.yml), trusting an identity provider
 * the test makes ({@link TestJwts}). Every operator endpoint is refused without
 * credentials (401), refused for a lesser role (403), accepted for the right one; the
 * probes are open and show no details; sensitive Actuator endpoints are closed; a body
 * over the limit is 413; every refusal is {@code {"error": ...}}; every write is audited
 * with the principal and its roles.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class NodeSecurityHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static final String GROUP = "sec";

    private static final String GROUP_JSON = "{\"name\": \"" + GROUP + "\", \"pipelines\": [{\"name\": \"p\", "
            + "\"processor\": {\"type\": \"passthrough\"}}], \"routes\": [{\"from_pipeline\": \"_external\", "
            + "\"to_pipeline\": \"p\"}]}";

    private static final String EVENT_JSON = "{\"event_type\": \"Probe\", \"fields\": {\"k\": \"v\"}}";

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static TestJwts idp;

    private static ConfigurableApplicationContext node;

    private static int port;

    private static long parked;

    @BeforeAll
    static void startNode() throws Exception {
        try (SubstrateFixture operator = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            parked = new ParkedEvents(operator).park("p", "parked-1");
        }
        idp = TestJwts.create(nats.workDir());
        node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "server.address=127.0.0.1", "varpulis.nats.url=" + nats.url(),
                    "varpulis.nats.substrate=jetstream", "varpulis.cluster.coordinator-id=sec-http",
                    "varpulis.cluster.worker-id=sec-http-w", "varpulis.dlq.write-enabled=true",
                    "spring.main.banner-mode=off", idp.publicKeyLocationArgument())
            .run();
        port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void probesAnswerWithoutCredentialsAndShowOnlyTheirStatus() throws Exception {
        for (String probe : List.of("/actuator/health/liveness", "/actuator/health/readiness")) {
            Answer answer = call("GET", probe, null, null);
            assertThat(answer.status()).as(probe).isEqualTo(200);
            assertThat(answer.body().get("status").asText()).isEqualTo("UP");
            assertThat(answer.body().has("components")).as("no details without credentials").isFalse();
        }
        Answer details = call("GET", "/actuator/health", bearer("VIEWER"), null);
        assertThat(details.status()).isEqualTo(200);
        assertThat(details.body().get("components").has("nats")).as("details for a principal").isTrue();
    }

    @Test
    void everyOperatorEndpointIsRefusedWithoutCredentials_with401AndAnErrorBody() throws Exception {
        for (Endpoint endpoint : endpoints()) {
            Answer answer = call(endpoint.method(), endpoint.path(), null, endpoint.body());
            assertThat(answer.status()).as(endpoint.toString()).isEqualTo(401);
            assertThat(answer.body().get("error").asText()).as(endpoint.toString()).contains("credentials required");
            assertThat(answer.headers().allValues("WWW-Authenticate")).contains("Basic realm=\"varpulis\"", "Bearer");
        }
        Answer forged = call("GET", "/api/v1/cluster/workers",
                "Bearer " + TestJwts.create(nats.workDir().resolve("other-idp")).token("mallory", "ADMIN"), null);
        assertThat(forged.status()).as("a token signed by another key").isEqualTo(401);
        assertThat(forged.body().get("error").asText()).contains("invalid bearer token");
        Answer expired = call("GET", "/api/v1/cluster/workers",
                "Bearer " + idp.token("late", Duration.ofMinutes(-5), "ADMIN"), null);
        assertThat(expired.status()).as("an expired token").isEqualTo(401);
    }

    @Test
    void aLesserRoleIs403WithAnErrorBody_andTheRightRoleIsAccepted() throws Exception {
        List<String> ladder = List.of("VIEWER", "OPERATOR", "ADMIN");
        for (Endpoint endpoint : endpoints()) {
            for (String role : ladder) {
                Answer answer = call(endpoint.method(), endpoint.path(), bearer(role), endpoint.body());
                boolean allowed = ladder.indexOf(role) >= ladder.indexOf(endpoint.role());
                if (allowed) {
                    assertThat(answer.status()).as(role + " " + endpoint + " -> " + answer.body()).isNotIn(401, 403);
                }
                else {
                    assertThat(answer.status()).as(role + " " + endpoint).isEqualTo(403);
                    assertThat(answer.body().get("error").asText()).as(role + " " + endpoint)
                        .contains(role.toLowerCase() + " [" + role + "]")
                        .contains("needs role " + endpoint.role());
                }
            }
        }
    }

    @Test
    void sensitiveActuatorEndpointsAreClosed() throws Exception {
        for (String path : List.of("/actuator", "/actuator/env", "/actuator/beans", "/actuator/heapdump",
                "/actuator/loggers", "/actuator/metrics", "/actuator/prometheus", "/actuator/health/nats")) {
            assertThat(call("GET", path, null, null).status()).as(path).isEqualTo(401);
        }
        for (String path : List.of("/actuator/env", "/actuator/beans", "/actuator/heapdump", "/actuator/shutdown")) {
            Answer answer = call("GET", path, bearer("ADMIN"), null);
            assertThat(answer.status()).as(path + " is not exposed at all").isEqualTo(404);
            assertThat(answer.body().has("error")).isTrue();
        }
        assertThat(call("POST", "/actuator/shutdown", bearer("ADMIN"), "{}").status()).isEqualTo(404);
    }

    /**
     * OPERATING's Security table: log levels are read by a VIEWER and changed by an
     * ADMIN, as the jar exposes them.
     */
    @Test
    void logLevelsAreReadByAViewerAndChangedByAnAdmin() throws Exception {
        assertThat(call("GET", "/actuator/loggers/io.varpulis", bearer("VIEWER"), null).status()).isEqualTo(200);
        String debug = "{\"configuredLevel\": \"DEBUG\"}";
        assertThat(call("POST", "/actuator/loggers/io.varpulis.audit", bearer("OPERATOR"), debug).status())
            .isEqualTo(403);
        assertThat(call("POST", "/actuator/loggers/io.varpulis.audit", bearer("ADMIN"), debug).status()).isEqualTo(204);
        assertThat(call("GET", "/actuator/loggers/io.varpulis.audit", bearer("VIEWER"), null).body()
            .path("configuredLevel")
            .asText()).isEqualTo("DEBUG");
        assertThat(call("POST", "/actuator/loggers/io.varpulis.audit", bearer("ADMIN"), "{}").status()).isEqualTo(204);
    }

    @Test
    void aBodyOverTheLimitIs413NeverServiceUnavailable_declaredOrChunked() throws Exception {
        declareGroup();
        String big = "{\"event_type\": \"Probe\", \"fields\": {\"blob\": \"" + "x".repeat(1_150_000) + "\"}}";
        Answer declared = call("POST", "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject", bearer("OPERATOR"), big);
        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.body().get("error").asText()).contains("varpulis.security.max-request-size");

        HttpRequest chunked = HttpRequest.newBuilder(uri("/api/v1/cluster/pipeline-groups/" + GROUP + "/inject"))
            .header("Authorization", bearer("OPERATOR"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers
                .ofInputStream(() -> new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8))))
            .timeout(Duration.ofSeconds(20))
            .build();
        HttpResponse<String> response = HTTP.send(chunked, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(413);
        assertThat(JSON.readTree(response.body()).get("error").asText()).contains("max-request-size");

        Answer unauthenticated = call("POST", "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject", null, big);
        assertThat(unauthenticated.status()).as("credentials are checked first").isEqualTo(401);
    }

    @Test
    void unknownPathsMethodsAndFieldsAnswerWithAnErrorBody() throws Exception {
        Answer path = call("GET", "/api/v1/cluster/nope", bearer("VIEWER"), null);
        assertThat(path.status()).isEqualTo(404);
        assertThat(path.body().get("error").asText()).contains("api/v1/cluster/nope");
        assertThat(call("GET", "/nothing-here", bearer("VIEWER"), null).body().has("error")).isTrue();

        Answer method = call("PUT", "/api/v1/cluster/pipeline-groups", bearer("ADMIN"), GROUP_JSON);
        assertThat(method.status()).isEqualTo(405);
        assertThat(method.body().get("error").asText()).contains("PUT", "GET", "POST");
        assertThat(method.body().size()).as("only the error field").isEqualTo(1);

        Answer field = call("POST", "/api/v1/cluster/pipeline-groups", bearer("OPERATOR"),
                GROUP_JSON.replace("\"pipelines\"", "\"pipelinez\""));
        assertThat(field.status()).isEqualTo(400);
        assertThat(field.body().get("error").asText()).contains("unknown field 'pipelinez'")
            .doesNotContain("has no pipelines");

        Answer eventField = call("POST", "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject", bearer("OPERATOR"),
                "{\"event_type\": \"Probe\", \"feilds\": {}}");
        assertThat(eventField.status()).isEqualTo(400);
        assertThat(eventField.body().get("error").asText()).contains("unknown field 'feilds'");

        Answer setting = call("POST", "/api/v1/cluster/pipeline-groups", bearer("OPERATOR"),
                GROUP_JSON.replace("\"name\": \"" + GROUP + "\"", "\"name\": \"misspelt\"")
                    .replace("{\"type\": \"passthrough\"}",
                            "{\"type\": \"filter\", \"settings\": " + "{\"expresion\": \"true\"}}"));
        assertThat(setting.status()).as(setting.body().toString()).isEqualTo(400);
        assertThat(setting.body().get("error").asText())
            .contains("processor type 'filter' has no setting " + "'expresion'; its settings: expression");
        Answer mainJob = call("POST", "/api/v1/cluster/pipeline-groups", bearer("OPERATOR"),
                GROUP_JSON.replace("\"name\": \"" + GROUP + "\"", "\"name\": \"main-job\"")
                    .replace("{\"type\": \"passthrough\"}", "{\"type\": \"brute-force\"}"));
        assertThat(mainJob.status()).isEqualTo(400);
        assertThat(mainJob.body().get("error").asText()).contains("varpulis.demo.processors.enabled=true");

        String inject = "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject";
        Answer malformed = call("POST", inject, bearer("OPERATOR"), "{\"event_type\": \"Probe\", }");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.body().get("error").asText()).contains("line 1, column")
            .doesNotContain("StreamReadFeature", "INCLUDE_SOURCE");
        Answer wrongType = call("POST", inject, bearer("OPERATOR"),
                "{\"event_type\": \"Probe\", \"fields\": " + "\"root\"}");
        assertThat(wrongType.status()).isEqualTo(400);
        assertThat(wrongType.body().get("error").asText()).contains("expected an object, got string", "(at 'fields')")
            .doesNotContain("java.util", "LinkedHashMap");
    }

    @Test
    void eventTypesAndFieldNamesHaveLengthLimits() throws Exception {
        declareGroup();
        String path = "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject";
        Answer type = call("POST", path, bearer("OPERATOR"),
                "{\"event_type\": \"" + "T".repeat(300) + "\", \"fields\": {}}");
        assertThat(type.status()).isEqualTo(400);
        assertThat(type.body().get("error").asText()).contains("event_type is 300 characters", "at most 256",
                "varpulis.security.max-event-type-length");
        Answer name = call("POST", path, bearer("OPERATOR"),
                "{\"event_type\": \"Probe\", \"fields\": {\"" + "f".repeat(257) + "\": 1}}");
        assertThat(name.status()).isEqualTo(400);
        assertThat(name.body().get("error").asText()).contains("257 characters", "max-field-name-length");
        Answer id = call("POST", path + "?id=bad%0Aid", bearer("OPERATOR"), EVENT_JSON);
        assertThat(id.status()).isEqualTo(400);
        assertThat(id.body().get("error").asText()).contains("?id=");
    }

    @Test
    void everyWriteIsAuditedWithThePrincipalAndItsRoles(CapturedOutput output) throws Exception {
        assertThat(call("POST", "/api/v1/cluster/pipeline-groups", bearer("OPERATOR"),
                GROUP_JSON.replace("\"" + GROUP + "\"", "\"audited\""))
            .status()).isEqualTo(201);
        assertThat(call("DELETE", "/api/v1/cluster/pipeline-groups/audited", bearer("ADMIN"), null).status())
            .isEqualTo(204);
        declareGroup();
        assertThat(call("POST", "/api/v1/cluster/pipeline-groups", bearer("OPERATOR"), GROUP_JSON).status())
            .isEqualTo(409);
        Answer injected = call("POST", "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject?id=audit-1",
                bearer("OPERATOR"), EVENT_JSON);
        assertThat(injected.status()).isEqualTo(202);
        assertThat(injected.body().get("id").asText()).isEqualTo("audit-1");
        assertThat(call("POST", "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject", bearer("OPERATOR"), EVENT_JSON)
            .body()
            .get("id")
            .asText()).as("an id is given when none was asked").isNotBlank();
        assertThat(call("DELETE", "/api/v1/cluster/dlq/999999", bearer("OPERATOR"), null).status()).isEqualTo(403);
        assertThat(call("POST", "/api/v1/cluster/dlq/replay", bearer("OPERATOR"), "{\"unit\": \"none\"}").status())
            .isEqualTo(200);

        assertThat(output).contains("audit: operator [OPERATOR]: declared group audited (1 pipelines)")
            .contains("audit: admin [ADMIN]: delete group audited: removed")
            .contains("audit: operator [OPERATOR]: refused: POST /api/v1/cluster/pipeline-groups: 409")
            .contains("audit: operator [OPERATOR]: inject Probe into group " + GROUP + " (id audit-1): stored")
            .contains("audit: operator [OPERATOR]: refused: DELETE /api/v1/cluster/dlq/999999: 403 needs role ADMIN")
            .contains("audit: operator [OPERATOR]: DLQ replay unit none");
    }

    @Test
    void anOperatorCannotForgeAuditLines_eventTypesAreCheckedAndEveryLineIsEscaped(CapturedOutput output)
            throws Exception {
        declareGroup();
        String forged = "audit: admin [ADMIN]: delete group " + GROUP + " with purge: removed";
        Answer type = call("POST", "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject", bearer("OPERATOR"),
                "{\"event_type\": \"Probe\\n" + forged + "\", \"fields\": {}}");
        assertThat(type.status()).isEqualTo(400);
        assertThat(type.body().get("error").asText()).contains("event_type", "letters, digits");
        Answer name = call("POST", "/api/v1/cluster/pipeline-groups", bearer("OPERATOR"),
                GROUP_JSON.replace("\"" + GROUP + "\"", "\"x\\r\\n" + forged + "\""));
        assertThat(name.status()).isEqualTo(400);

        assertThat(output.getAll().lines()).as("no line of the log is one the caller wrote")
            .noneMatch(line -> line.startsWith("audit:"));
        assertThat(output).contains("refused: POST /api/v1/cluster/pipeline-groups: 400 ").contains("\\r\\n" + forged);
    }

    @Test
    void everyRefusedWriteIsAuditedInTheOneFormat(CapturedOutput output) throws Exception {
        declareGroup();
        String inject = "/api/v1/cluster/pipeline-groups/" + GROUP + "/inject";
        String big = "{\"event_type\": \"Probe\", \"fields\": {\"blob\": \"" + "x".repeat(1_150_000) + "\"}}";
        assertThat(call("POST", inject, bearer("OPERATOR"), big).status()).isEqualTo(413);
        assertThat(call("POST", "/api/v1/cluster/pipeline-groups", bearer("OPERATOR"),
                GROUP_JSON.replace("\"pipelines\"", "\"pipelinez\""))
            .status()).isEqualTo(400);
        assertThat(call("PUT", "/api/v1/cluster/pipeline-groups", bearer("ADMIN"), GROUP_JSON).status()).isEqualTo(405);
        assertThat(send("POST", "/api/v1/cluster/pipeline-groups", bearer("OPERATOR"), "text/plain", GROUP_JSON))
            .isEqualTo(415);
        assertThat(
                call("POST", "/api/v1/cluster/pipeline-groups/missing/inject", bearer("OPERATOR"), EVENT_JSON).status())
            .isEqualTo(404);
        assertThat(call("DELETE", "/api/v1/cluster/dlq/999999", bearer("ADMIN"), null).status()).isEqualTo(404);
        assertThat(call("POST", "/api/v1/cluster/dlq/replay", bearer("OPERATOR"), "{\"unit\": \"none\"}").status())
            .isEqualTo(200);

        assertThat(output).contains("audit: operator [OPERATOR]: refused: POST " + inject + ": 413 the request body is")
            .contains("audit: operator [OPERATOR]: refused: POST /api/v1/cluster/pipeline-groups: 400 unknown "
                    + "field 'pipelinez'")
            .contains("audit: admin [ADMIN]: refused: PUT /api/v1/cluster/pipeline-groups: 405 ")
            .contains("audit: operator [OPERATOR]: refused: POST /api/v1/cluster/pipeline-groups: 415 ")
            .contains("audit: operator [OPERATOR]: refused: POST /api/v1/cluster/pipeline-groups/missing/inject: "
                    + "404")
            .contains("audit: admin [ADMIN]: refused: DELETE /api/v1/cluster/dlq/999999: 404")
            .contains("audit: operator [OPERATOR]: DLQ replay unit none: 0 replayed")
            .doesNotContain("DLQ audit:");
    }

    @Test
    void aWriteABrowserCouldSendCrossSiteWithoutAPreflightChangesNothing() throws Exception {
        String group = GROUP_JSON.replace("\"" + GROUP + "\"", "\"csrf\"");
        for (String type : List.of("text/plain", "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=b")) {
            assertThat(send("POST", "/api/v1/cluster/pipeline-groups", bearer("ADMIN"), type, group)).as(type)
                .isEqualTo(415);
        }
        assertThat(call("GET", "/api/v1/cluster/pipeline-groups/csrf", bearer("VIEWER"), null).status())
            .as("no group declared")
            .isEqualTo(404);

        long depth = call("GET", "/api/v1/cluster/dlq", bearer("VIEWER"), null).body().path("depth").asLong();
        assertThat(depth).isPositive();
        for (String type : List.of("text/plain", "application/x-www-form-urlencoded")) {
            for (String path : List.of("/actuator/dlq?all=true", "/api/v1/cluster/dlq/replay?all=true")) {
                int status = send("POST", path, bearer("ADMIN"), type, "");
                assertThat(status).as(type + " " + path).isIn(400, 415);
            }
        }
        int noType = HTTP
            .send(HttpRequest.newBuilder(uri("/actuator/dlq?all=true"))
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.noBody())
                .header("Authorization", bearer("ADMIN"))
                .build(), HttpResponse.BodyHandlers.discarding())
            .statusCode();
        assertThat(noType).as("no body, no Content-Type").isIn(400, 415);
        assertThat(call("GET", "/api/v1/cluster/dlq", bearer("VIEWER"), null).body().path("depth").asLong())
            .as("nothing replayed")
            .isEqualTo(depth);
    }

    private static void declareGroup() throws Exception {
        Answer answer = call("POST", "/api/v1/cluster/pipeline-groups", bearer("OPERATOR"), GROUP_JSON);
        assertThat(answer.status()).as(answer.body().toString()).isIn(201, 409);
    }

    /**
     * Every operator endpoint with the least role it needs; bodies and ids that reach the
     * handler.
     */
    private static List<Endpoint> endpoints() {
        String group = "/api/v1/cluster/pipeline-groups/";
        return List.of(new Endpoint("GET", "/api/v1/cluster/workers", null, "VIEWER"),
                new Endpoint("GET", "/api/v1/cluster/pipeline-groups", null, "VIEWER"),
                new Endpoint("GET", group + "missing", null, "VIEWER"),
                new Endpoint("GET", "/api/v1/cluster/topology", null, "VIEWER"),
                new Endpoint("GET", "/api/v1/cluster/dlq", null, "VIEWER"),
                new Endpoint("GET", "/api/v1/cluster/dlq/" + parked, null, "VIEWER"),
                new Endpoint("GET", "/actuator/dlq", null, "VIEWER"),
                new Endpoint("GET", "/actuator/metrics", null, "VIEWER"),
                new Endpoint("GET", "/actuator/prometheus", null, "VIEWER"),
                new Endpoint("GET", "/actuator/health", null, "VIEWER"),
                new Endpoint("POST", "/api/v1/cluster/pipeline-groups", "{\"name\": \"bad name\"}", "OPERATOR"),
                new Endpoint("POST", group + "missing/inject", EVENT_JSON, "OPERATOR"),
                new Endpoint("POST", "/api/v1/cluster/dlq/replay", "{}", "OPERATOR"),
                new Endpoint("POST", "/actuator/dlq", "{}", "OPERATOR"),
                new Endpoint("DELETE", group + "missing?purge=true", null, "ADMIN"),
                new Endpoint("DELETE", "/api/v1/cluster/dlq/999999", null, "ADMIN"),
                new Endpoint("DELETE", "/api/v1/cluster/dlq?unit=none", null, "ADMIN"),
                new Endpoint("DELETE", "/actuator/dlq/999999", null, "ADMIN"));
    }

    private static String bearer(String role) {
        return "Bearer " + idp.token(role.toLowerCase(), role);
    }

    private static Answer call(String method, String path, String authorization, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(20))
            .method(method,
                    body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        boolean isJson = response.headers().firstValue("Content-Type").orElse("").contains("json");
        JsonNode json = response.body().isEmpty() ? JSON.nullNode()
                : isJson ? JSON.readTree(response.body()) : JSON.getNodeFactory().textNode(response.body());
        return new Answer(response.statusCode(), json, response.headers());
    }

    /** A request with a body of the given content type; the status. */
    private static int send(String method, String path, String authorization, String contentType, String body)
            throws Exception {
        return HTTP
            .send(HttpRequest.newBuilder(uri(path))
                .timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", contentType)
                .header("Authorization", authorization)
                .build(), HttpResponse.BodyHandlers.discarding())
            .statusCode();
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** An operator endpoint and the least role it needs. */
    private record Endpoint(String method, String path, String body, String role) {

        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    /** An HTTP answer. */
    private record Answer(int status, JsonNode body, HttpHeaders headers) {
    }

}
