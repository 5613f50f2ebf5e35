package io.varpulis.autoconfigure;

import io.varpulis.autoconfigure.node.ClusterStreamsAutoConfiguration;
import io.varpulis.autoconfigure.node.DeadLetterApiAutoConfiguration;
import io.nats.client.Connection;
import io.varpulis.dlq.DeadLetterConsole;
import io.varpulis.dlq.DeadLetterEndpoint;
import io.varpulis.dlq.DeathEnvelope;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.web.DeadLetterController;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * When the dead-letter console, its Actuator endpoint and its REST controller are
 * configured, against a real server (the auto-configuration connects).
 */
@BrokerTest
class DeadLetterAutoConfigurationTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final AutoConfigurations autoConfigurations = AutoConfigurations.of(NatsAutoConfiguration.class,
            JetStreamAutoConfiguration.class, ClusterStreamsAutoConfiguration.class,
            SubstrateMetricsAutoConfiguration.class, TransportAutoConfiguration.class,
            DeadLetterAutoConfiguration.class, DeadLetterApiAutoConfiguration.class);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner().withConfiguration(autoConfigurations)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "management.endpoints.web.exposure.include=dlq");
    }

    private WebApplicationContextRunner webRunner() {
        return new WebApplicationContextRunner().withConfiguration(autoConfigurations)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream");
    }

    @Test
    void onJetStreamTheConsoleAndItsEndpointAreConfigured_withWritesOffByDefault() {
        runner().run(context -> {
            assertThat(context).hasSingleBean(DeadLetterConsole.class)
                .hasSingleBean(DeadLetterEndpoint.class)
                .doesNotHaveBean(DeadLetterController.class);
            assertThat(context.getBean(DeadLetterProperties.class).isWriteEnabled()).isFalse();
            assertThat(context.getBean(DeadLetterConsole.class).writeEnabled()).isFalse();
        });
    }

    @Test
    void onCoreNothingIsConfigured_becauseCoreParksNothing() {
        runner().withPropertyValues("varpulis.nats.substrate=core").run(context -> {
            assertThat(context).hasNotFailed()
                .doesNotHaveBean(DeadLetterConsole.class)
                .doesNotHaveBean(DeadLetterEndpoint.class);
        });
    }

    @Test
    void theEndpointIsLeftOutWhenItIsNotExposed() {
        runner().withPropertyValues("management.endpoints.web.exposure.include=health")
            .run(context -> assertThat(context).hasSingleBean(DeadLetterConsole.class)
                .doesNotHaveBean(DeadLetterEndpoint.class));
    }

    @Test
    void readOnlyAccessLeavesOnlyTheReadOperationsOnTheWeb() {
        webRunner()
            .withConfiguration(
                    AutoConfigurations.of(EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=dlq")
            .run(context -> assertThat(operations(context)).containsOnly(OperationType.READ, OperationType.WRITE,
                    OperationType.DELETE));
        webRunner()
            .withConfiguration(
                    AutoConfigurations.of(EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class))
            // SpringApplication's lenient conversion, which reads "read-only" as
            // Access.READ_ONLY.
            .withInitializer(
                    context -> context.getEnvironment().setConversionService(new ApplicationConversionService()))
            .withPropertyValues("management.endpoints.web.exposure.include=dlq",
                    "management.endpoint.dlq.access=read-only")
            .run(context -> assertThat(operations(context)).containsOnly(OperationType.READ));
    }

    private static List<OperationType> operations(ApplicationContext context) {
        return context.getBean(WebEndpointsSupplier.class)
            .getEndpoints()
            .stream()
            .filter(e -> e.getEndpointId().equals(EndpointId.of("dlq")))
            .flatMap(e -> e.getOperations().stream())
            .map(WebOperation::getType)
            .toList();
    }

    @Test
    void theClusterApiControllerIsOnlyOnAServletCoordinator() {
        webRunner().run(context -> assertThat(context).doesNotHaveBean(DeadLetterController.class));
        webRunner().withPropertyValues("varpulis.cluster.enabled=true", "varpulis.cluster.role=worker")
            .run(context -> assertThat(context).doesNotHaveBean(DeadLetterController.class));
        webRunner().withPropertyValues("varpulis.cluster.enabled=true", "varpulis.cluster.role=coordinator")
            .run(context -> assertThat(context).hasSingleBean(DeadLetterController.class));
        runner().withPropertyValues("varpulis.cluster.enabled=true", "varpulis.cluster.role=coordinator")
            .run(context -> assertThat(context).doesNotHaveBean(DeadLetterController.class));
    }

    @Test
    void aConsoleOfTheApplicationReplacesTheAutoConfiguredOne() {
        runner().withUserConfiguration(OwnConsole.class).run(context -> {
            assertThat(context).hasSingleBean(DeadLetterConsole.class);
            assertThat(context.getBeanNamesForType(DeadLetterConsole.class)).containsExactly("ownConsole");
        });
    }

    @Test
    void writesAreRefusedWith403AndAnErrorBodyOnTheEndpointAndTheClusterApi() {
        webRunner()
            .withPropertyValues("varpulis.cluster.enabled=true", "varpulis.cluster.role=coordinator",
                    "management.endpoints.web.exposure.include=dlq")
            .run(context -> {
                DeadLetterEndpoint endpoint = context.getBean(DeadLetterEndpoint.class);
                WebEndpointResponse<Object> replay = endpoint.replay(null, null, true, SecurityContext.NONE);
                assertThat(replay.getStatus()).isEqualTo(403);
                assertThat(((Map<?, ?>) replay.getBody()).get("error").toString())
                    .contains("varpulis.dlq.write-enabled");
                assertThat(endpoint.purge(1, SecurityContext.NONE).getStatus()).isEqualTo(403);
                assertThat(endpoint.purgeUnit("detect", SecurityContext.NONE).getStatus()).isEqualTo(403);
                assertThat(endpoint.show(999_999).getStatus()).isEqualTo(404);
                assertThat(endpoint.list(null, "soon", null, null, null).getStatus()).isEqualTo(400);

                MockMvc mvc = MockMvcBuilders.standaloneSetup(context.getBean(DeadLetterController.class)).build();
                mvc.perform(post("/api/v1/cluster/dlq/replay").contentType(MediaType.APPLICATION_JSON)
                    .content("{\"all\": true}"))
                    .andExpect(status().isForbidden())
                    .andExpect(jsonPath("$.error")
                        .value(org.hamcrest.Matchers.containsString("varpulis.dlq.write-enabled=true")));
                mvc.perform(delete("/api/v1/cluster/dlq/1")).andExpect(status().isForbidden());
                mvc.perform(delete("/api/v1/cluster/dlq").param("unit", "detect")).andExpect(status().isForbidden());
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnConsole {

        @Bean
        DeadLetterConsole ownConsole(Connection connection, ClusterTransport transport) {
            return new DeadLetterConsole(connection, transport, DeathEnvelope.jsonMapper(),
                    new DeadLetterProperties().toSettings());
        }

    }

}
