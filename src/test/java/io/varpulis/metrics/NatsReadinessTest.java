package io.varpulis.metrics;

import io.varpulis.autoconfigure.JetStreamAutoConfiguration;
import io.varpulis.autoconfigure.NatsAutoConfiguration;
import io.varpulis.autoconfigure.SubstrateMetricsAutoConfiguration;
import io.varpulis.autoconfigure.TransportAutoConfiguration;
import io.varpulis.autoconfigure.VarpulisHealthContributorAutoConfiguration;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Readiness follows NATS and recovers by itself; liveness never depends on it (SPEC
 * section 7b). The health groups are those of the jar's application.yml, against a real
 * server stopped and started again on the same port.
 */
@BrokerTest
class NatsReadinessTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class, JetStreamAutoConfiguration.class,
                SubstrateMetricsAutoConfiguration.class, TransportAutoConfiguration.class,
                EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
                VarpulisHealthContributorAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class,
                AvailabilityHealthContributorAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class))
        .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                "varpulis.nats.reconnect-wait=200ms", "management.endpoint.health.probes.enabled=true",
                "management.endpoint.health.validate-group-membership=false",
                "management.endpoint.health.group.readiness.include=readinessState,nats,jetstream",
                "management.endpoint.health.group.liveness.include=livenessState");

    @Test
    void readinessGoesDownWhenNatsIsUnreachable_andComesBackUpByItself_whileLivenessStaysUp() {
        runner.run(context -> {
            AvailabilityChangeEvent.publish(context, LivenessState.CORRECT);
            AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
            HealthEndpoint health = context.getBean(HealthEndpoint.class);
            assertThat(status(health, "readiness")).isEqualTo(Status.UP);
            assertThat(context.getBean(HealthEndpointGroups.class).get("liveness").isMember("nats")).isFalse();

            nats.stop();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> status(health, "readiness").equals(Status.DOWN));
                assertThat(status(health, "liveness")).as("a NATS outage never restarts the pod").isEqualTo(Status.UP);
                assertThat(status(health, "readiness", "nats")).isEqualTo(Status.DOWN);
            }
            finally {
                nats.start();
            }

            await().atMost(Duration.ofSeconds(30)).until(() -> status(health, "readiness").equals(Status.UP));
            assertThat(status(health, "readiness", "jetstream")).isEqualTo(Status.UP);
            assertThat(status(health, "liveness")).isEqualTo(Status.UP);
        });
    }

    private static Status status(HealthEndpoint health, String... path) {
        return health.healthForPath(path).getStatus();
    }

}
