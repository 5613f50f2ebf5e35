package io.varpulis.jetstream;

import io.varpulis.autoconfigure.node.ClusterStreamsAutoConfiguration;
import io.varpulis.autoconfigure.JetStreamAutoConfiguration;
import io.varpulis.autoconfigure.NatsAutoConfiguration;
import io.varpulis.autoconfigure.SubstrateMetricsAutoConfiguration;
import io.varpulis.autoconfigure.TransportAutoConfiguration;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ADR-007: nodes need permission to create streams and consumers on first connect. A node
 * whose NATS user lacks it fails startup with a message naming the object and the refused
 * JetStream API subject.
 */
@BrokerTest
class JetStreamPermissionTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream()
        .withConfig(
                """
                        authorization {
                          users = [
                            { user: limited, password: limited,
                              permissions: { publish: { allow: ["varpulis.>", "$JS.API.INFO"] }, subscribe: { allow: ["_INBOX.>"] } } }
                            { user: admin, password: admin }
                          ]
                        }
                        """);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class, JetStreamAutoConfiguration.class,
                ClusterStreamsAutoConfiguration.class, SubstrateMetricsAutoConfiguration.class,
                TransportAutoConfiguration.class))
        .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                "varpulis.nats.connect-timeout=2s",
                // A cluster node's streams (ClusterStreamsAutoConfiguration):
                // ClusterAutoConfiguration itself is not in this context.
                "varpulis.cluster.enabled=true");

    @Test
    void userWithoutPermissionToCreateTheStreamsFailsStartupNamingTheStreamAndTheRefusedSubject() {
        runner.withPropertyValues("varpulis.nats.username=limited", "varpulis.nats.password=limited").run(context -> {
            assertThat(context).hasFailed();
            Throwable root = context.getStartupFailure();
            while (!(root instanceof JetStreamPermissionException) && root.getCause() != null) {
                root = root.getCause();
            }
            assertThat(root).isInstanceOf(JetStreamPermissionException.class);
            JetStreamPermissionException failure = (JetStreamPermissionException) root;
            assertThat(failure.getDescription()).contains("stream VARPULIS_ROUTING")
                .contains("$JS.API.STREAM.INFO.VARPULIS_ROUTING");
            assertThat(failure.getAction()).contains("publish permission on $JS.API.STREAM.INFO" + ".VARPULIS_ROUTING");
        });
    }

    @Test
    void userWithFullPermissionsStarts() {
        runner.withPropertyValues("varpulis.nats.username=admin", "varpulis.nats.password=admin")
            .run(context -> assertThat(context).hasNotFailed().hasSingleBean(JetStreamAdmin.class));
    }

}
