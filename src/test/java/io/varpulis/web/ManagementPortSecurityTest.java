package io.varpulis.web;

import io.varpulis.VarpulisClusterApplication;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.HttpStatuses;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCredentials;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's layout over real HTTP: Actuator on a separate management port with
 * {@code varpulis.security.open-prometheus=true}. Prometheus scrapes there without
 * credentials; the probes answer there; every other endpoint there still needs
 * credentials; the application port serves neither.
 */
@BrokerTest
class ManagementPortSecurityTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.coreOnly();

    private static ConfigurableApplicationContext node;

    private static int port;

    private static int management;

    @BeforeAll
    static void startNode() {
        node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "server.address=127.0.0.1", "management.server.port=0",
                    "management.server.address=127.0.0.1", "varpulis.security.open-prometheus=true",
                    "varpulis.nats.url=" + nats.url(), "varpulis.cluster.role=coordinator",
                    "spring.main.banner-mode=off", "spring.security.user.password=" + TestCredentials.PASSWORD)
            .run();
        port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        management = node.getEnvironment().getRequiredProperty("local.management.port", Integer.class);
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void prometheusAndTheProbesAreOpenOnTheManagementPortOnly_everythingElseNeedsCredentials() throws Exception {
        assertThat(management).isNotEqualTo(port);
        assertThat(HttpStatuses.get(management, "/actuator/prometheus", null)).isEqualTo(200);
        assertThat(HttpStatuses.get(management, "/actuator/health/readiness", null)).isEqualTo(200);
        assertThat(HttpStatuses.get(management, "/actuator/health/liveness", null)).isEqualTo(200);
        assertThat(HttpStatuses.get(management, "/actuator/metrics", null)).isEqualTo(401);
        assertThat(HttpStatuses.get(management, "/actuator/health", null)).isEqualTo(401);
        assertThat(HttpStatuses.get(management, "/actuator/metrics", TestCredentials.adminBasic())).isEqualTo(200);

        assertThat(HttpStatuses.get(port, "/actuator/prometheus", null)).as("not open on the application port")
            .isEqualTo(401);
        assertThat(HttpStatuses.get(port, "/actuator/prometheus", TestCredentials.adminBasic())).as("not served there")
            .isEqualTo(404);
        assertThat(HttpStatuses.get(port, "/api/v1/cluster/workers", null)).isEqualTo(401);
        assertThat(HttpStatuses.get(port, "/api/v1/cluster/workers", TestCredentials.adminBasic())).isEqualTo(200);
    }

}
