package io.varpulis.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.varpulis.VarpulisClusterApplication;
import io.varpulis.dlq.ParkedEvents;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.ExternalTool;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.test.TestJwts;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC section 15 and issue 24: the operator API's OpenAPI document is its contract.
 * schemathesis (installed by {@code scripts/install-schemathesis.sh}; missing is a
 * failure, not a skip) fuzzes a standalone node on a real nats-server from the document
 * the node serves, without credentials and with a bearer token of each role
 * ({@link TestJwts}): no 5xx, every status, content type and body as documented. A
 * refused call writes nothing: after the runs without credentials and as VIEWER, the
 * pipeline groups and the DLQ are what they were. Each run is bounded (a few examples per
 * operation, the coverage and fuzzing phases). The ADMIN run asks for the stateful phase
 * too, but schemathesis reports it "not applicable": the document declares no OpenAPI
 * links to chain calls by.
 */
@BrokerTest
class OperatorApiFuzzTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static final Path CACHE = Path.of(System.getProperty("user.home"), ".cache", "varpulis", "schemathesis");

    private static final String GROUP = "{\"name\": \"fuzz\", \"pipelines\": [{\"name\": \"p\", \"processor\": "
            + "{\"type\": \"passthrough\"}}], \"routes\": [{\"from_pipeline\": \"_external\", "
            + "\"to_pipeline\": \"p\"}]}";

    private static final String CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,"
            + "response_schema_conformance";

    /**
     * schemathesis's summary: "Selected: 13/13" then "Tested: 13", every operation of the
     * document.
     */
    private static final Pattern SELECTED = Pattern.compile("Selected: (\\d+)/\\1\\s+Tested: \\1\\b");

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static ExternalTool schemathesis;

    private static TestJwts idp;

    private static ConfigurableApplicationContext node;

    private static int port;

    private static Path document;

    private static Path config;

    @BeforeAll
    static void startNode() throws Exception {
        schemathesis = ExternalTool.require("schemathesis", "VARPULIS_SCHEMATHESIS",
                List.of(CACHE.resolve("bin/schemathesis")), "run scripts/install-schemathesis.sh");
        long parked;
        try (SubstrateFixture operator = SubstrateFixture.connect(nats.url(), Substrate.JETSTREAM)) {
            parked = new ParkedEvents(operator).park("p", "parked-1");
        }
        idp = TestJwts.create(nats.workDir());
        node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "server.address=127.0.0.1", "varpulis.nats.url=" + nats.url(),
                    "varpulis.nats.substrate=jetstream", "varpulis.cluster.coordinator-id=fuzz",
                    "varpulis.cluster.worker-id=fuzz-w", "varpulis.cluster.command-timeout=2s",
                    "varpulis.dlq.write-enabled=true", "spring.main.banner-mode=off", "logging.level.io.varpulis=WARN",
                    idp.publicKeyLocationArgument())
            .run();
        port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        HttpResponse<String> served = get("/v3/api-docs", bearer("VIEWER"));
        assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
        document = nats.workDir().resolve("operator-api.json");
        Files.writeString(document, served.body());
        assertThat(send("POST", "/api/v1/cluster/pipeline-groups", "OPERATOR", "application/json", GROUP).statusCode())
            .isEqualTo(201);
        // Path values that exist, so that the fuzzer reaches past the 404s: the group,
        // the parked event.
        config = nats.workDir().resolve("schemathesis.toml");
        Files.writeString(config, "[parameters]\n\"path.id\" = \"fuzz\"\n\"path.sequence\" = " + parked + "\n");
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void theDocumentIsServedToAViewerOnly_andDescribesEveryOperation() throws Exception {
        assertThat(get("/v3/api-docs", null).statusCode()).isEqualTo(401);
        assertThat(get("/v3/api-docs.yaml", bearer("VIEWER")).statusCode()).isEqualTo(200);
        String json = Files.readString(document);
        assertThat(json)
            .contains("\"/api/v1/cluster/pipeline-groups/{id}/inject\"", "\"/api/v1/cluster/dlq/replay\"",
                    "\"ApiError\"", "\"bearer\"")
            .doesNotContain("/actuator");
    }

    @Test
    void withoutCredentials_everyAnswerIsDocumented_andNothingIsWritten() throws Exception {
        String before = writableState();
        fuzz(null, "coverage,fuzzing");
        assertThat(writableState()).as("groups and DLQ after refused calls").isEqualTo(before);
    }

    @Test
    void asViewer_everyAnswerIsDocumented_andNothingIsWritten() throws Exception {
        String before = writableState();
        fuzz("VIEWER", "coverage,fuzzing");
        assertThat(writableState()).as("groups and DLQ after a viewer's calls").isEqualTo(before);
    }

    @Test
    void asOperator_everyAnswerIsDocumented() throws Exception {
        fuzz("OPERATOR", "coverage,fuzzing");
    }

    @Test
    void asAdmin_everyAnswerIsDocumented() throws Exception {
        fuzz("ADMIN", "coverage,fuzzing,stateful");
    }

    /**
     * Found by the fuzzer: Spring's multipart parsing answered 500 for
     * multipart/form-data without a boundary.
     */
    @Test
    void aMultipartContentTypeIsNeverParsed_getIsAnswered_postIs415() throws Exception {
        assertThat(send("GET", "/api/v1/cluster/workers", "ADMIN", "multipart/form-data", "").statusCode())
            .isEqualTo(200);
        HttpResponse<String> post = send("POST", "/api/v1/cluster/pipeline-groups", "ADMIN", "multipart/form-data",
                "{}");
        assertThat(post.statusCode()).isEqualTo(415);
        assertThat(post.body()).contains("send JSON with Content-Type: application/json");
    }

    /**
     * Found by the fuzzer: Tomcat's refusal of a malformed query string (an
     * IllegalStateException) was answered 409 as if the group clashed with another; it is
     * 400, and nothing is deleted.
     */
    @Test
    void aMalformedQueryStringIs400_notAConflict_andDeletesNothing() throws Exception {
        assertThat(send("POST", "/api/v1/cluster/pipeline-groups", "ADMIN", "application/json",
                GROUP.replace("\"fuzz\"", "\"fuzz-kept\""))
            .statusCode()).isIn(201, 409);
        HttpResponse<String> delete = send("DELETE", "/api/v1/cluster/pipeline-groups/fuzz-kept?purge=true&=", "ADMIN",
                null, null);
        assertThat(delete.statusCode()).as(delete.body()).isEqualTo(400);
        assertThat(delete.body()).startsWith("{\"error\":").contains("Invalid chunk");
        assertThat(get("/api/v1/cluster/pipeline-groups/fuzz-kept", bearer("VIEWER")).statusCode()).isEqualTo(200);
    }

    private static void fuzz(String role, String phases) throws Exception {
        List<String> arguments = new ArrayList<>(List.of("--config-file", config.toString(), "run", document.toString(),
                "--url", "http://127.0.0.1:" + port, "--checks", CHECKS, "--phases", phases, "--max-examples", "5",
                "--workers", "1", "--request-timeout", "20", "--no-shrink", "--suppress-health-check", "all"));
        if (role != null) {
            arguments.addAll(List.of("--header", "Authorization: " + bearer(role)));
        }
        ExternalTool.Run run = schemathesis.run(nats.workDir(), arguments.toArray(String[]::new));
        String who = role == null ? "nobody" : role;
        // The figures (operations, test cases, failures) in the test's log, for the
        // measurements of issue 24.
        int summary = run.output().lastIndexOf("SUMMARY");
        System.out.printf("schemathesis as %s:%n%s%n", who,
                summary < 0 ? run.output() : run.output().substring(summary));
        assertThat(run.exitStatus()).as("schemathesis as %s:%n%s", who, run.output()).isZero();
        Matcher selected = SELECTED.matcher(run.output());
        assertThat(selected.find()).as("schemathesis as %s tested every operation:%n%s", who, run.output()).isTrue();
        assertThat(Integer.parseInt(selected.group(1))).as("operations in the document").isGreaterThanOrEqualTo(13);
    }

    /**
     * What a write would change: the groups with their placement, and the DLQ. Without
     * each group's {@code adopting_until}, a view of the clock (shown while the
     * coordinator adopts after its start, gone once that window passed during the
     * fuzzing), not of anything stored.
     */
    private static String writableState() throws Exception {
        JsonNode groups = new ObjectMapper().readTree(get("/api/v1/cluster/pipeline-groups", bearer("ADMIN")).body());
        groups.forEach(group -> ((ObjectNode) group).remove("adopting_until"));
        return groups + "\n" + get("/api/v1/cluster/dlq", bearer("ADMIN")).body();
    }

    private static String bearer(String role) {
        return "Bearer " + idp.token(role.toLowerCase(), role);
    }

    private static HttpResponse<String> send(String method, String path, String role, String contentType, String body)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20))
            .header("Authorization", bearer(role))
            .method(method,
                    body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

}
