package io.varpulis.autoconfigure;

import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.messaging.ImplicitCoreSubstrateGuard;
import io.varpulis.messaging.NatsListener;
import io.varpulis.messaging.NatsListenerEndpointRegistry;
import io.varpulis.nats.NatsStartupException;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No silent fire-and-forget (issue 33, SPEC section 13): a service that declares
 * listeners or streams and leaves {@code varpulis.nats.substrate} unset is refused at
 * startup, naming the property and both fixes; saying core explicitly (property or
 * {@code VARPULIS_NATS_SUBSTRATE}), choosing jetstream, declaring nothing, or being a
 * cluster node (ADR-007's default) starts.
 */
@BrokerTest
class ImplicitCoreSubstrateTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    static class OrderListener {

        @NatsListener(id = "orders", subject = "orders.>")
        void onOrder(String order) {
        }

    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class, JetStreamAutoConfiguration.class,
                SubstrateMetricsAutoConfiguration.class, TransportAutoConfiguration.class,
                NatsListenerAutoConfiguration.class))
        .withPropertyValues("varpulis.nats.url=" + nats.url());

    @Test
    void aListenerOnTheDefaultSubstrateIsRefusedNamingThePropertyTheListenerAndBothFixes() {
        runner.withBean(OrderListener.class).run(context -> {
            NatsStartupException failure = refusal(context);
            assertThat(failure.getDescription()).contains("varpulis.nats.substrate", "@NatsListener orders",
                    "fire-and-forget");
            assertThat(failure.getAction()).contains("varpulis.nats.substrate=jetstream",
                    "VARPULIS_NATS_SUBSTRATE=jetstream", "varpulis.nats.substrate=core");
            FailureAnalysis analysis = new NatsStartupFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("varpulis.nats.substrate");
            assertThat(analysis.getAction()).contains("varpulis.nats.substrate=jetstream");
        });
    }

    @Test
    void aStreamDeclaredInPropertiesOnTheDefaultSubstrateIsRefusedNamingIt() {
        runner.withPropertyValues("varpulis.nats.jetstream.streams.ORDERS.subjects=orders.>")
            .run(context -> assertThat(refusal(context).getDescription()).contains("stream ORDERS")
                .doesNotContain("@NatsListener"));
    }

    @Test
    void aStreamDeclaredAsABeanOnTheDefaultSubstrateIsRefusedNamingIt() {
        runner
            .withBean("ordersStream", StreamDeclaration.class,
                    () -> ConfiguredStreams.stream("ORDERS", ordersSpec(), 1))
            .run(context -> assertThat(refusal(context).getDescription()).contains("stream ORDERS"));
    }

    @Test
    void coreSaidExplicitlyStartsTheListenerFireAndForget() {
        runner.withBean(OrderListener.class).withPropertyValues("varpulis.nats.substrate=core").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ImplicitCoreSubstrateGuard.class);
            assertThat(context.getBean(NatsListenerEndpointRegistry.class).getListenerContainers()).hasSize(1);
        });
    }

    @Test
    void coreSaidByTheAdrEnvironmentVariableStarts() {
        runner.withBean(OrderListener.class)
            .withInitializer(
                    context -> context.getEnvironment()
                        .getPropertySources()
                        .addFirst(new SystemEnvironmentPropertySource("environment",
                                Map.of("VARPULIS_NATS_SUBSTRATE", "core"))))
            .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void jetStreamStartsTheListener() {
        runner.withBean(OrderListener.class)
            .withPropertyValues("varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams.ORDERS.subjects=orders.>")
            .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aServiceThatDeclaresNothingStartsOnTheDefault() {
        runner.run(context -> assertThat(context).hasNotFailed());
    }

    private static NatsStartupException refusal(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        while (!(failure instanceof NatsStartupException) && failure.getCause() != null) {
            failure = failure.getCause();
        }
        assertThat(failure).isInstanceOf(NatsStartupException.class);
        return (NatsStartupException) failure;
    }

    private static JetStreamStreamsProperties.StreamSpec ordersSpec() {
        JetStreamStreamsProperties.StreamSpec spec = new JetStreamStreamsProperties.StreamSpec();
        spec.setSubjects(List.of("orders.>"));
        return spec;
    }

}
