package io.varpulis.web;

import io.varpulis.VarpulisClusterApplication;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.HttpStatuses;
import io.varpulis.test.NatsServerExtension;
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
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A coordinator trusting an identity provider for its own audience
 * ({@code spring.security.oauth2.resourceserver.jwt.audiences}), with every Actuator
 * endpoint exposed as an operator might: a token for another audience, or for none, is
 * refused (review finding 9); a viewer reads health, info, metrics, Prometheus and
 * loggers, but what exposes the node's memory, threads, configuration or wiring
 * (heapdump, threaddump, env, configprops, beans, mappings, ...) needs an admin (review
 * finding 10).
 */
@BrokerTest
class IdentityProviderHttpTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static final String AUDIENCE = "varpulis-test";

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.coreOnly();

    private static TestJwts idp;

    private static ConfigurableApplicationContext node;

    private static int port;

    @BeforeAll
    static void startNode() {
        idp = TestJwts.create(nats.workDir());
        node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "server.address=127.0.0.1", "varpulis.nats.url=" + nats.url(),
                    "varpulis.cluster.role=coordinator", "spring.main.banner-mode=off",
                    "spring.security.oauth2.resourceserver.jwt.audiences=" + AUDIENCE, idp.publicKeyLocationArgument())
            // Above the jar's application.yml, as an operator would set it.
            .run("--management.endpoints.web.exposure.include=*", "--management.endpoint.heapdump.access=read-only");
        port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void aTokenForAnotherAudienceOrForNoneIsRefused() throws Exception {
        assertThat(HttpStatuses.get(port, "/api/v1/cluster/workers", bearer("VIEWER"))).isEqualTo(200);
        assertThat(HttpStatuses.get(port, "/api/v1/cluster/workers",
                "Bearer " + idp.tokenFor("another-service", "viewer", "ADMIN")))
            .as("another audience")
            .isEqualTo(401);
        assertThat(HttpStatuses.get(port, "/api/v1/cluster/workers", "Bearer " + idp.token("viewer", "ADMIN")))
            .as("no audience")
            .isEqualTo(401);
    }

    @Test
    void aViewerReadsTheOperationalEndpoints_whatExposesTheNodesInsidesNeedsAnAdmin() throws Exception {
        for (String path : List.of("/actuator", "/actuator/health", "/actuator/info", "/actuator/metrics",
                "/actuator/prometheus", "/actuator/loggers")) {
            assertThat(HttpStatuses.get(port, path, bearer("VIEWER"))).as(path).isEqualTo(200);
        }
        for (String path : List.of("/actuator/threaddump", "/actuator/env", "/actuator/configprops", "/actuator/beans",
                "/actuator/mappings", "/actuator/conditions", "/actuator/scheduledtasks", "/actuator/sbom",
                "/actuator/heapdump")) {
            assertThat(HttpStatuses.get(port, path, bearer("OPERATOR"))).as(path).isEqualTo(403);
        }
        for (String path : List.of("/actuator/threaddump", "/actuator/env", "/actuator/configprops",
                "/actuator/beans")) {
            assertThat(HttpStatuses.get(port, path, bearer("ADMIN"))).as(path).isEqualTo(200);
        }
        HttpResponse<Void> levels = HTTP
            .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/loggers/io.varpulis"))
                .header("Authorization", bearer("OPERATOR"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"configuredLevel\": \"TRACE\"}"))
                .build(), HttpResponse.BodyHandlers.discarding());
        assertThat(levels.statusCode()).as("changing a log level").isEqualTo(403);
    }

    private static String bearer(String role) {
        return "Bearer " + idp.tokenFor(AUDIENCE, role.toLowerCase(), role);
    }

}
