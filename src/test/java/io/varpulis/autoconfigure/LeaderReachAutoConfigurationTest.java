package io.varpulis.autoconfigure;

import io.varpulis.jetstream.LeaderReachReconnect;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code varpulis.nats.jetstream.leader-reach.*} (issue 25): the reconnect policy is a
 * bean on JetStream with its defaults, and a value it cannot use fails startup naming the
 * property.
 */
@BrokerTest
class LeaderReachAutoConfigurationTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class, JetStreamAutoConfiguration.class))
        .withPropertyValues("varpulis.nats.substrate=jetstream", "varpulis.nats.startup-retry-timeout=1s");

    @Test
    void thePropertiesDefaultsAreTheDefaultsWhatRunsOutsideSpringUses() {
        assertThat(new LeaderReachProperties().toSettings())
            .isEqualTo(io.varpulis.jetstream.LeaderReachReconnect.Settings.DEFAULTS);
    }

    @Test
    void theReconnectPolicyIsABeanOnJetStream() {
        runner.withPropertyValues("varpulis.nats.url=" + nats.url())
            .run(context -> assertThat(context).hasSingleBean(LeaderReachReconnect.class));
    }

    @ParameterizedTest(name = "reconnect-after={0}")
    @CsvSource({ "-1s, reconnectAfter", "1s, check-interval" })
    void aReconnectAfterItCannotUseFailsStartupNamingTheProperty(String value, String why) {
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(),
                    "varpulis.nats.jetstream.leader-reach.reconnect-after=" + value)
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(messages(context.getStartupFailure()))
                    .contains("varpulis.nats.jetstream.leader-reach.reconnect-after")
                    .contains(why);
            });
    }

    @Test
    void aNegativeDownAfterFailsStartupNamingTheProperty() {
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(),
                    "varpulis.nats.jetstream.leader-reach.down-after=-1s")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(messages(context.getStartupFailure())).contains("varpulis.nats.jetstream.leader-reach")
                    .contains("downAfter");
            });
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }

}
