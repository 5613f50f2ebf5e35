package io.varpulis.web;

import io.varpulis.VarpulisClusterApplication;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.HttpStatuses;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC section 10: a node started with no credentials configured never runs open. Spring
 * Boot generates a password for the jar's user {@code varpulis} (role {@code ADMIN}) and
 * logs it once; only that password opens the API.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class GeneratedPasswordTest {

    private static final Pattern GENERATED = Pattern.compile("Using generated security password: (\\S+)");

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.coreOnly();

    @Test
    void withoutCredentialsTheNodeGeneratesAPasswordLogsItOnceAndOnlyItOpensTheApi(CapturedOutput output)
            throws Exception {
        try (ConfigurableApplicationContext node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "server.address=127.0.0.1", "varpulis.nats.url=" + nats.url(),
                    "varpulis.cluster.role=coordinator", "spring.main.banner-mode=off")
            .run()) {
            int port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            Matcher generated = GENERATED.matcher(output.getAll());
            assertThat(generated.find()).as("the generated password is logged").isTrue();
            String password = generated.group(1);
            assertThat(generated.find()).as("once").isFalse();

            assertThat(HttpStatuses.get(port, "/api/v1/cluster/workers", null)).isEqualTo(401);
            assertThat(HttpStatuses.get(port, "/api/v1/cluster/workers", TestCredentials.basic("varpulis", "wrong")))
                .isEqualTo(401);
            assertThat(HttpStatuses.get(port, "/api/v1/cluster/workers", TestCredentials.basic("varpulis", password)))
                .isEqualTo(200);
            assertThat(HttpStatuses.get(port, "/actuator/health/readiness", null)).isEqualTo(200);
        }
    }

}
