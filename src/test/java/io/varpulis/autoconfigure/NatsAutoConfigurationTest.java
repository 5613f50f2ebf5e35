package io.varpulis.autoconfigure;

import io.varpulis.autoconfigure.node.ClusterStreamsAutoConfiguration;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamInfo;
import io.varpulis.jetstream.ConsumerSettings;
import io.varpulis.dlq.DeadLetterParker;
import io.varpulis.jetstream.ConsumerDeclaration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.JetStreamUnavailableException;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.NatsStartupException;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.LoopbackPorts;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.Consumption;
import io.varpulis.transport.Delivery;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.format.support.DefaultFormattingConversionService;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configuration against real nats-server processes: substrate selection, refusal
 * to start without JetStream (no fallback), unreachable servers, authentication settings,
 * replaceable beans, configured streams.
 */
@BrokerTest
class NatsAutoConfigurationTest {

    @RegisterExtension
    static final NatsServerExtension jetStream = NatsServerExtension.jetStream();

    @RegisterExtension
    static final NatsServerExtension coreOnly = NatsServerExtension.coreOnly();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class, JetStreamAutoConfiguration.class,
                ClusterStreamsAutoConfiguration.class, SubstrateMetricsAutoConfiguration.class,
                TransportAutoConfiguration.class))
        .withPropertyValues("varpulis.nats.connect-timeout=1s", "varpulis.nats.startup-retry-timeout=1s");

    @Test
    void unknownSubstrateFailsStartupNamingThePropertyTheValueAndTheAcceptedOnes() {
        runner.withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=jetstrem")
            .run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure(),
                        InvalidConfigurationPropertyValueException.class);
                assertThat(failure.getName()).isEqualTo("varpulis.nats.substrate");
                assertThat(failure.getValue()).isEqualTo("jetstrem");
                assertThat(failure.getMessage()).contains("varpulis.nats.substrate", "'jetstrem'", "core", "jetstream",
                        "pubsub", "pub_sub", "js", "VARPULIS_NATS_SUBSTRATE");
            });
    }

    @Test
    void emptySubstrateFailsStartupInsteadOfDefaulting() {
        runner.withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=").run(context -> {
            assertThat(context).hasFailed();
            InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure(),
                    InvalidConfigurationPropertyValueException.class);
            assertThat(failure.getName()).isEqualTo("varpulis.nats.substrate");
            assertThat(failure.getMessage()).contains("varpulis.nats.substrate", "''", "core", "jetstream");
        });
    }

    @Test
    void unsetSubstrateIsCore() {
        runner.withPropertyValues("varpulis.nats.url=" + jetStream.url()).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ClusterTransport.class).substrate()).isEqualTo(Substrate.CORE);
            assertThat(context).doesNotHaveBean(JetStreamAdmin.class);
        });
    }

    @ParameterizedTest(name = "{0} selects {1}")
    @CsvSource({ "core, CORE", "pubsub, CORE", "pub_sub, CORE", "' PUB_SUB ', CORE", "CoRe, CORE",
            "jetstream, JETSTREAM", "js, JETSTREAM", "' JS ', JETSTREAM", "JetStream, JETSTREAM" })
    void substrateValueAndAliasesSelectTheTransport(String value, Substrate expected) {
        NatsServerExtension server = expected == Substrate.JETSTREAM ? jetStream : coreOnly;
        runner.withPropertyValues("varpulis.nats.url=" + server.url(), "varpulis.nats.substrate=" + value)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(ClusterTransport.class);
                assertThat(context.getBean(ClusterTransport.class).substrate()).isEqualTo(expected);
                assertThat(context.getBean(Substrate.class)).isEqualTo(expected);
                if (expected == Substrate.JETSTREAM) {
                    assertThat(context).hasSingleBean(JetStreamAdmin.class);
                }
                else {
                    assertThat(context).doesNotHaveBean(JetStreamAdmin.class);
                    assertThat(context).doesNotHaveBean(StreamDeclaration.class);
                }
            });
    }

    /**
     * A service that declares its own {@code conversionService} bean makes Spring Boot's
     * binder use that one alone, ignoring {@code @ConfigurationPropertiesBinding}
     * converters: the aliases and the refusal of an unknown value must not depend on
     * them.
     */
    @ParameterizedTest(name = "{0} selects {1}")
    @CsvSource({ "js, JETSTREAM", "' JetStream ', JETSTREAM", "pubsub, CORE", "pub_sub, CORE" })
    void aliasesHoldWhenTheServiceDeclaresItsOwnConversionService(String value, Substrate expected) {
        NatsServerExtension server = expected == Substrate.JETSTREAM ? jetStream : coreOnly;
        runner.withBean("conversionService", ConversionService.class, DefaultFormattingConversionService::new)
            .withPropertyValues("varpulis.nats.url=" + server.url(), "varpulis.nats.substrate=" + value)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(Substrate.class)).isEqualTo(expected);
                assertThat(context.getBean(ClusterTransport.class).substrate()).isEqualTo(expected);
            });
    }

    @Test
    void unknownSubstrateFailsNamingThePropertyWhenTheServiceDeclaresItsOwnConversionService() {
        runner.withBean("conversionService", ConversionService.class, DefaultFormattingConversionService::new)
            .withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=jetstrem")
            .run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure(),
                        InvalidConfigurationPropertyValueException.class);
                assertThat(failure.getName()).isEqualTo("varpulis.nats.substrate");
                assertThat(failure.getMessage()).contains("'jetstrem'", "core", "jetstream", "VARPULIS_NATS_SUBSTRATE");
            });
        runner.withBean("conversionService", ConversionService.class, DefaultFormattingConversionService::new)
            .withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate= ")
            .run(context -> assertThat(
                    cause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class).getName())
                .isEqualTo("varpulis.nats.substrate"));
    }

    @Test
    void varpulisNatsSubstrateEnvironmentVariableSelectsTheTransport() {
        runner.withPropertyValues("varpulis.nats.url=" + jetStream.url()).withInitializer(context -> {
            Map<String, Object> env = new HashMap<>(System.getenv());
            env.put("VARPULIS_NATS_SUBSTRATE", "js");
            context.getEnvironment()
                .getPropertySources()
                .replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                env));
        }).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ClusterTransport.class).substrate()).isEqualTo(Substrate.JETSTREAM);
            assertThat(context).hasSingleBean(JetStreamAdmin.class);
        });
    }

    @Test
    void jetstreamOnACoreOnlyServerRefusesToStartWithTheFixAndNeverFallsBackToCore() {
        List<Object> transports = new CopyOnWriteArrayList<>();
        runner.withPropertyValues("varpulis.nats.url=" + coreOnly.url(), "varpulis.nats.substrate=jetstream")
            .withInitializer(context -> context.getBeanFactory().addBeanPostProcessor(new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if (bean instanceof ClusterTransport) {
                        transports.add(bean);
                    }
                    return bean;
                }
            }))
            .run(context -> {
                assertThat(context).hasFailed();
                NatsStartupException failure = cause(context.getStartupFailure(), NatsStartupException.class);
                assertThat(failure).isInstanceOf(JetStreamUnavailableException.class);
                assertThat(failure.getMessage()).contains(coreOnly.url(), "jetstream");
                assertThat(failure.getAction()).contains("-js", "jetstream {}", "VARPULIS_NATS_SUBSTRATE=core");

                FailureAnalysis analysis = new NatsStartupFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains(coreOnly.url());
                assertThat(analysis.getAction()).contains("-js", "VARPULIS_NATS_SUBSTRATE=core");
            });
        assertThat(transports).as("no ClusterTransport, in particular no core fallback, was created").isEmpty();
    }

    @Test
    void coreOnAJetStreamServerRoundTripsAnEvent() {
        String subject = "varpulis.cluster.pipeline.roundtrip.ingest.detector";
        runner.withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=core")
            .run(context -> {
                assertThat(context).hasNotFailed();
                ClusterTransport transport = context.getBean(ClusterTransport.class);
                assertThat(transport.substrate()).isEqualTo(Substrate.CORE);
                assertThat(context).doesNotHaveBean(JetStreamAdmin.class);

                String event = "{\"event_type\":\"SshAuthFailure\",\"fields\":{\"src_ip\":\"10.0.0.9\"}}";
                BlockingQueue<Delivery> received = new LinkedBlockingQueue<>();
                ConsumerDeclaration consumer = VarpulisJetStream.routeEdgeConsumer("detector", subject,
                        ConsumerSettings.defaults());
                try (Consumption ignored = transport.consume(consumer, delivery -> {
                    delivery.ack();
                    received.add(delivery);
                })) {
                    context.getBean(Connection.class).flush(Duration.ofSeconds(2));
                    PublishReceipt receipt = transport.publish(OutboundMessage.of(subject, event))
                        .get(5, TimeUnit.SECONDS);
                    assertThat(receipt.stored()).isFalse();

                    Delivery delivery = received.poll(5, TimeUnit.SECONDS);
                    assertThat(delivery).isNotNull();
                    assertThat(delivery.subject()).isEqualTo(subject);
                    assertThat(new String(delivery.data(), StandardCharsets.UTF_8)).isEqualTo(event);
                    assertThat(delivery.substrate()).isEqualTo(Substrate.CORE);
                    assertThat(delivery.attempt()).isEqualTo(1);
                    assertThat(delivery.isSettled()).isTrue();
                }
            });
    }

    @Test
    void corePublisherIsCapturedByTheRoutingStreamOfAJetStreamNode() {
        String subject = "varpulis.cluster.pipeline.mixed.ingest.detector";
        String event = "{\"event_type\":\"RolloutProbe\"}";
        runner
            .withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.enabled=true")
            .run(jetStreamNode -> {
                assertThat(jetStreamNode).hasNotFailed();
                runner.withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=core")
                    .run(coreNode -> coreNode.getBean(ClusterTransport.class)
                        .publish(OutboundMessage.of(subject, event))
                        .get(5, TimeUnit.SECONDS));

                // A core publish is fire-and-forget: the stream stores it shortly after
                // the publisher's flush.
                JetStreamAdmin admin = jetStreamNode.getBean(JetStreamAdmin.class);
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                    MessageInfo stored = admin.management().getLastMessage(VarpulisJetStream.ROUTING_STREAM, subject);
                    assertThat(new String(stored.getData(), StandardCharsets.UTF_8)).isEqualTo(event);
                });
            });
    }

    @Test
    void unreachableServerFailsStartupAfterTheRetryTimeoutWithItsOwnMessage() throws IOException {
        String url = "nats://127.0.0.1:" + LoopbackPorts.next();
        long started = System.nanoTime();
        runner
            .withPropertyValues("varpulis.nats.url=" + url, "varpulis.nats.connect-timeout=200ms",
                    "varpulis.nats.startup-retry-timeout=1s")
            .run(context -> {
                assertThat(context).hasFailed();
                NatsStartupException failure = cause(context.getStartupFailure(), NatsStartupException.class);
                assertThat(failure.getMessage()).contains(url, "unreachable");
                assertThat(failure.getAction()).contains("varpulis.nats.url", "startup-retry-timeout");
            });
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void twoAuthenticationMethodsFailStartupNamingBoth() {
        runner
            .withPropertyValues("varpulis.nats.url=" + coreOnly.url(), "varpulis.nats.token=s3cret",
                    "varpulis.nats.username=alice", "varpulis.nats.password=pw")
            .run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure(),
                        InvalidConfigurationPropertyValueException.class);
                assertThat(failure.getMessage()).contains("varpulis.nats.", "token", "username",
                        "Only one NATS authentication method");
            });
    }

    @Test
    void usernameWithoutPasswordFailsStartupNamingThePassword() {
        runner.withPropertyValues("varpulis.nats.url=" + coreOnly.url(), "varpulis.nats.username=alice")
            .run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure(),
                        InvalidConfigurationPropertyValueException.class);
                assertThat(failure.getName()).isEqualTo("varpulis.nats.password");
            });
    }

    @Test
    void userDefinedConnectionReplacesTheAutoConfiguredOne() throws Exception {
        Connection mine = Nats
            .connect(new Options.Builder().server(coreOnly.url()).connectionName("user-defined").build());
        runner.withPropertyValues("varpulis.nats.url=nats://127.0.0.1:1")
            .withBean("myConnection", Connection.class, () -> mine)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(Connection.class);
                assertThat(context.getBean(Connection.class)).isSameAs(mine);
                assertThat(context.getBean(ClusterTransport.class).substrate()).isEqualTo(Substrate.CORE);
            });
        assertThat(mine.getStatus()).isEqualTo(Connection.Status.CLOSED);
    }

    @Test
    void userDefinedClusterTransportReplacesTheAutoConfiguredOne() {
        ClusterTransport mine = new StubTransport();
        runner.withPropertyValues("varpulis.nats.url=" + coreOnly.url())
            .withBean("myTransport", ClusterTransport.class, () -> mine)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(ClusterTransport.class);
                assertThat(context.getBean(ClusterTransport.class)).isSameAs(mine);
                assertThat(context).hasSingleBean(DeadLetterParker.class);
            });
    }

    @Test
    void streamConfiguredInPropertiesIsCreatedWithTheDefaults() {
        runner
            .withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams.ORDERS.subjects=orders.>",
                    "varpulis.nats.jetstream.streams.ORDERS.max-age=10m")
            .run(context -> {
                assertThat(context).hasNotFailed();
                JetStreamAdmin admin = context.getBean(JetStreamAdmin.class);
                StreamInfo orders = admin.streamInfo("ORDERS").orElseThrow();
                assertThat(orders.getConfiguration().getSubjects()).containsExactly("orders.>");
                assertThat(orders.getConfiguration().getMaxAge()).isEqualTo(Duration.ofMinutes(10));
                // A service's own stream, and the DLQ it would park into; no cluster
                // stream (issue 33).
                assertThat(admin.declaredStreams()).containsOnlyKeys("ORDERS", VarpulisJetStream.DLQ_STREAM);
                assertThat(admin.streamInfo(VarpulisJetStream.DLQ_STREAM)).isPresent();
            });
    }

    @Test
    void aBuiltInStreamRefusesWhatWouldLetItsMessagesLeaveUnapplied() {
        for (String setting : List.of("routing.retention=interest", "routing.storage=memory", "dlq.max-age=1d",
                "heartbeat.discard=new")) {
            runner
                .withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=jetstream",
                        "varpulis.nats.jetstream." + setting)
                .run(context -> {
                    assertThat(context).hasFailed();
                    StringBuilder messages = new StringBuilder();
                    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                        messages.append(t.getMessage()).append('\n');
                    }
                    String name = setting.substring(0, setting.indexOf('='));
                    assertThat(messages.toString()).as(setting)
                        .contains("fixed for a built-in stream (ADR-007): remove varpulis.nats.jetstream." + name)
                        .doesNotContain("Bean Validation");
                });
        }
        runner
            .withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.routing.max-age=2h", "varpulis.nats.jetstream.dlq.max-msgs=500")
            .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void configuredStreamWithoutSubjectsFailsStartupNamingTheProperty() {
        runner
            .withPropertyValues("varpulis.nats.url=" + jetStream.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams.NOSUBJECTS.max-age=10m")
            .run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException failure = cause(context.getStartupFailure(),
                        InvalidConfigurationPropertyValueException.class);
                assertThat(failure.getName()).isEqualTo("varpulis.nats.jetstream.streams.NOSUBJECTS.subjects");
                assertThat(failure.getMessage()).contains("NOSUBJECTS", "subject");
            });
        try (Connection nc = Nats.connect(jetStream.url())) {
            assertThat(nc.jetStreamManagement().getStreamNames()).doesNotContain("NOSUBJECTS");
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the cause chain of " + failure, failure);
    }

    /** A transport a user wires by hand. */
    private static final class StubTransport implements ClusterTransport {

        @Override
        public Substrate substrate() {
            return Substrate.CORE;
        }

        @Override
        public CompletableFuture<PublishReceipt> publish(OutboundMessage message) {
            return CompletableFuture.completedFuture(new PublishReceipt(message.subject(), null, 0, false));
        }

        @Override
        public Consumption consume(ConsumerDeclaration consumer, io.varpulis.transport.DeliveryHandler handler) {
            throw new UnsupportedOperationException("stub");
        }

        @Override
        public void close() {
        }

    }

}
