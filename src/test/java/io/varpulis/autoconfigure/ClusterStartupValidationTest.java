package io.varpulis.autoconfigure;

import io.varpulis.autoconfigure.node.ClusterStreamsAutoConfiguration;
import io.varpulis.autoconfigure.node.ClusterAutoConfiguration;
import io.nats.client.Connection;
import io.varpulis.cluster.coordinator.ClusterQueries;
import io.varpulis.autoconfigure.node.ClusterProperties;
import io.varpulis.autoconfigure.node.NodePropertyDefaults;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster node's startup checks (SPEC section 2: a bad value fails startup with the
 * property's name, the bad value and the fix), ADR-007's environment variables
 * {@code VARPULIS_COORDINATOR_ID} and {@code VARPULIS_WORKER_ID}, and each node's own
 * inbox prefix ({@code _INBOX_{role}_{id}}), on a real JetStream server.
 */
@BrokerTest
class ClusterStartupValidationTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class, JetStreamAutoConfiguration.class,
                ClusterStreamsAutoConfiguration.class, SubstrateMetricsAutoConfiguration.class,
                TransportAutoConfiguration.class, ClusterAutoConfiguration.class))
        .withPropertyValues("varpulis.cluster.enabled=true", "varpulis.nats.connect-timeout=1s",
                "varpulis.nats.startup-retry-timeout=1s");

    @ParameterizedTest(name = "role {0}")
    @ValueSource(strings = { "coordinator", "standalone" })
    void coordinatorOnJetStreamWithoutCoordinatorIdFailsNamingThePropertyAndTheEnvironmentVariable(String role) {
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.role=" + role)
            .run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure());
                assertThat(failure.getName()).isEqualTo("varpulis.cluster.coordinator-id");
                assertThat(failure.getMessage()).contains("varpulis.cluster.coordinator-id", "VARPULIS_COORDINATOR_ID",
                        "hb_");
            });
    }

    @Test
    void aConfiguredPipelineWithReplicasButNoPartitionKeyFailsStartupNamingTheGroupsProperty() {
        String p = "varpulis.cluster.groups.g.pipelines[0].";
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=core",
                    "varpulis.cluster.role=coordinator", p + "name=detect", p + "processor.type=passthrough",
                    p + "replicas=2", "varpulis.cluster.groups.g.routes[0].from-pipeline=_external",
                    "varpulis.cluster.groups.g.routes[0].to-pipeline=detect")
            .run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure());
                assertThat(failure.getName()).isEqualTo("varpulis.cluster.groups.g");
                assertThat(failure.getMessage()).contains("partition_key is missing", "or set replicas to 1");
            });
    }

    @Test
    void aConfiguredPartitionedPipelineBindsItsReplicasAndPartitionKey() {
        String p = "varpulis.cluster.groups.g.pipelines[0].";
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=core",
                    "varpulis.cluster.role=coordinator", p + "name=detect", p + "processor.type=passthrough",
                    p + "replicas=3", p + "partition-key=src_ip",
                    "varpulis.cluster.groups.g.routes[0].from-pipeline=_external",
                    "varpulis.cluster.groups.g.routes[0].to-pipeline=detect")
            .run(context -> {
                assertThat(context).hasNotFailed();
                var detect = context.getBean(ClusterQueries.class)
                    .group("g")
                    .orElseThrow()
                    .pipeline("detect")
                    .orElseThrow();
                assertThat(detect.partitions()).isEqualTo(3);
                assertThat(detect.partitionKey()).isEqualTo("src_ip");
            });
    }

    @Test
    void coordinatorOnCoreNeedsNoId() {
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=core",
                    "varpulis.cluster.role=coordinator")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(ClusterQueries.class).coordinatorId()).isEqualTo("coordinator");
            });
    }

    @ParameterizedTest(name = "worker id ''{0}''")
    @ValueSource(strings = { "worker.1", "worker 1", "worker-*", "worker->" })
    void workerIdThatIsNotANatsTokenFailsNamingThePropertyAndTheValue(String workerId) {
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.role=worker", "varpulis.cluster.worker-id=" + workerId)
            .run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure());
                assertThat(failure.getName()).isEqualTo("varpulis.cluster.worker-id");
                assertThat(failure.getValue()).isEqualTo(workerId);
                assertThat(failure.getMessage()).contains("varpulis.cluster.worker-id", "VARPULIS_WORKER_ID");
            });
    }

    @Test
    void heartbeatTimeoutNotLongerThanTheIntervalFailsNamingIt() {
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=core",
                    "varpulis.cluster.role=worker", "varpulis.cluster.worker-id=w1",
                    "varpulis.cluster.heartbeat-interval=5s", "varpulis.cluster.heartbeat-timeout=5s")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(cause(context.getStartupFailure()).getName())
                    .isEqualTo("varpulis.cluster.heartbeat-timeout");
            });
    }

    @Test
    void theDefaultClusterNameIsTheOneOlderNodesAreTakenToHave() {
        assertThat(new ClusterProperties().getName()).isEqualTo(Commands.DEFAULT_CLUSTER);
    }

    @Test
    void adrEnvironmentVariablesAreReadAsTheIdProperties() {
        StandardEnvironment environment = environment(
                Map.of("VARPULIS_COORDINATOR_ID", " coord-env ", "VARPULIS_WORKER_ID", "worker-env"));

        ClusterProperties cluster = bind(environment);
        assertThat(cluster.getCoordinatorId()).isEqualTo("coord-env");
        assertThat(cluster.getWorkerId()).isEqualTo("worker-env");
    }

    @Test
    void anExplicitPropertyOrTheRelaxedVariableWinsOverTheAdrEnvironmentVariable() {
        StandardEnvironment environment = environment(Map.of("VARPULIS_COORDINATOR_ID", "coord-env",
                "VARPULIS_CLUSTER_WORKERID", "worker-relaxed", "VARPULIS_WORKER_ID", "worker-env"));
        environment.getPropertySources()
            .addFirst(new MapPropertySource("explicit", Map.of("varpulis.cluster.coordinator-id", "coord-explicit")));

        ClusterProperties cluster = bind(environment);
        assertThat(cluster.getCoordinatorId()).isEqualTo("coord-explicit");
        assertThat(cluster.getWorkerId()).isEqualTo("worker-relaxed");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({ "worker, _INBOX_worker_w-9, varpulis-worker-w-9",
            "coordinator, _INBOX_coordinator_c-9, varpulis-coordinator-w-9",
            "standalone, _INBOX_standalone_w-9, varpulis-standalone-w-9" })
    void aNodeConnectsWithItsOwnInboxAndNameByDefault(String role, String inbox, String name) {
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.role=" + role, "varpulis.cluster.worker-id=w-9",
                    "varpulis.cluster.coordinator-id=c-9")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(Connection.class).getOptions().getInboxPrefix()).isEqualTo(inbox + ".");
                assertThat(context.getBean(Connection.class).createInbox()).startsWith(inbox + ".");
                assertThat(context.getBean(Connection.class).getOptions().getConnectionName()).isEqualTo(name);
            });
    }

    @Test
    void anExplicitInboxPrefixWins_andOneThatIsNotSubjectTokensFailsNamingIt() {
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.role=worker", "varpulis.cluster.worker-id=w-9",
                    "varpulis.nats.inbox-prefix=_INBOX_mine", "varpulis.nats.connection-name=mine")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(Connection.class).getOptions().getInboxPrefix()).isEqualTo("_INBOX_mine.");
                assertThat(context.getBean(Connection.class).getOptions().getConnectionName()).isEqualTo("mine");
            });

        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class))
            .withPropertyValues("varpulis.nats.url=" + nats.url())
            .run(context -> assertThat(context.getBean(Connection.class).getOptions().getInboxPrefix())
                .as("not a cluster node: jnats' _INBOX")
                .isEqualTo("_INBOX."));

        runner.withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.inbox-prefix=_INBOX.>")
            .run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure());
                assertThat(failure.getName()).isEqualTo("varpulis.nats.inbox-prefix");
                assertThat(failure.getMessage()).contains("'_INBOX.>'", "subject tokens", "{prefix}.>");
            });
    }

    /** As the node binds them: its defaults first, then every property source. */
    private static ClusterProperties bind(StandardEnvironment environment) {
        ClusterProperties cluster = (ClusterProperties) new NodePropertyDefaults(environment)
            .postProcessBeforeInitialization(new ClusterProperties(), "clusterProperties");
        return Binder.get(environment).bind("varpulis.cluster", Bindable.ofInstance(cluster)).orElse(cluster);
    }

    @Test
    void coordinatorOnJetStreamStartsWithItsIdFromVarpulisCoordinatorId() {
        runner
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.role=coordinator")
            .withInitializer(context -> withEnvironmentVariables((ConfigurableApplicationContext) context,
                    Map.of("VARPULIS_COORDINATOR_ID", "coord-from-env")))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(ClusterQueries.class).coordinatorId()).isEqualTo("coord-from-env");
                assertThat(context.getBean(Connection.class)
                    .jetStreamManagement()
                    .getConsumerInfo(VarpulisJetStream.HEARTBEAT_STREAM,
                            DurableNames.heartbeatConsumer("coord-from-env"))
                    .getName()).isEqualTo("hb_coord-from-env");
            });
    }

    /**
     * A standard environment whose system environment is the given map, not the
     * process's.
     */
    private static StandardEnvironment environment(Map<String, Object> variables) {
        StandardEnvironment environment = new StandardEnvironment();
        replaceSystemEnvironment(environment, variables);
        return environment;
    }

    private static void withEnvironmentVariables(ConfigurableApplicationContext context,
            Map<String, Object> variables) {
        replaceSystemEnvironment(context.getEnvironment(), variables);
    }

    private static void replaceSystemEnvironment(ConfigurableEnvironment environment, Map<String, Object> variables) {
        environment.getPropertySources()
            .replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
                    StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
    }

    private static InvalidConfigurationPropertyValueException cause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidConfigurationPropertyValueException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("no InvalidConfigurationPropertyValueException in the cause chain of " + failure,
                failure);
    }

}
