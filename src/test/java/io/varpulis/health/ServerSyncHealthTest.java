package io.varpulis.health;

import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.autoconfigure.JetStreamAutoConfiguration;
import io.varpulis.autoconfigure.JetStreamDurabilityAutoConfiguration;
import io.varpulis.autoconfigure.NatsAutoConfiguration;
import io.varpulis.autoconfigure.SubstrateMetricsAutoConfiguration;
import io.varpulis.autoconfigure.VarpulisHealthContributorAutoConfiguration;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.metrics.ServerSyncGauge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.LoopbackPorts;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code jetstream} health tells the fsync truth (issue 43, SPEC section 21): a node
 * on a nats-server that does not sync every write says so in its health, its log (WARN)
 * and {@code varpulis.jetstream.sync.always}, and stays UP; on a server with
 * {@code sync_interval: always} it says nothing. Its first check runs after the
 * declarations: a stream an operator tuned shows its drift at once, not after a refresh
 * interval.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class ServerSyncHealthTest {

    private static final int MONITORING_PORT = LoopbackPorts.next();

    private static final String MONITORING = "http: \"127.0.0.1:" + MONITORING_PORT + "\"\n";

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream().withConfig(MONITORING);

    private static final String WARNING = "does not sync every write to disk before acknowledging it";

    private ApplicationContextRunner node(String... properties) {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                NatsAutoConfiguration.class, JetStreamAutoConfiguration.class, SubstrateMetricsAutoConfiguration.class,
                VarpulisHealthContributorAutoConfiguration.class, JetStreamDurabilityAutoConfiguration.class))
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    // One check only: the one the context's start runs.
                    "varpulis.nats.jetstream.health-refresh-interval=1h",
                    "varpulis.nats.jetstream.evictions.enabled=false")
            .withPropertyValues(properties);
    }

    @Test
    void theFirstCheck_runsAfterTheDeclarations_andShowsAStreamsDriftAtOnce() throws Exception {
        try (Connection admin = Nats.connect(nats.url())) {
            admin.jetStreamManagement().addStream(tuned(Duration.ofHours(2)));
        }
        node().withBean("tunedStream", StreamDeclaration.class, () -> new StreamDeclaration(tuned(Duration.ofHours(1))))
            .run(context -> {
                Health health = context.getBean(JetStreamHealthIndicator.class).health(true);

                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(details(health, "streams")).containsKey("TUNED");
                assertThat(details(details(health, "streams"), "TUNED")).containsEntry("present", true)
                    .containsEntry("drift", "max_age=2h (expected 1h)");
            });
    }

    @Test
    void aServerWithTheDefaultSync_isNamedInTheHealthTheLogAndTheGauge_andReadinessStaysUp(CapturedOutput output) {
        node("varpulis.nats.jetstream.sync-check.monitoring-urls=http://127.0.0.1:" + MONITORING_PORT).run(context -> {
            Health health = context.getBean(JetStreamHealthIndicator.class).health(true);
            Map<String, Object> sync = details(health, "sync");

            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(sync).containsEntry("setting", "interval");
            assertThat((String) sync.get("warning")).contains(WARNING);
            assertThat(output.getOut()).contains("WARN").contains(WARNING);
            assertThat(gauge(context.getBean(MeterRegistry.class))).isZero();
            if (isOldServer()) {
                assertThat(sync).containsEntry("source", "version");
            }
            else {
                assertThat(sync).containsEntry("source", "varz");
                assertThat(details(sync, "servers")).containsValue("every 2m");
            }
        });
    }

    @Test
    void aServerThatSyncsEveryWrite_saysNothing(CapturedOutput output) throws Exception {
        if (isOldServer()) {
            // nats-server 2.9 has no sync_interval (it refuses the setting): it can only
            // be
            // told apart by its version, and is never "always".
            node("varpulis.nats.jetstream.sync-check.monitoring-urls=http://127.0.0.1:" + MONITORING_PORT).run(
                    context -> assertThat(details(context.getBean(JetStreamHealthIndicator.class).health(true), "sync"))
                        .containsEntry("setting", "interval")
                        .containsEntry("source", "version"));
            return;
        }
        nats.stop();
        nats.withConfig(MONITORING + "jetstream { sync_interval: always }\n");
        nats.start();
        try {
            node("varpulis.nats.jetstream.sync-check.monitoring-urls=http://127.0.0.1:" + MONITORING_PORT)
                .run(context -> {
                    Map<String, Object> sync = details(context.getBean(JetStreamHealthIndicator.class).health(true),
                            "sync");

                    assertThat(sync).containsEntry("setting", "always").doesNotContainKey("warning");
                    assertThat(details(sync, "servers")).containsOnly(Map.entry(serverName(), "always"));
                    assertThat(output.getOut()).doesNotContain(WARNING);
                    assertThat(gauge(context.getBean(MeterRegistry.class))).isEqualTo(1);
                });
        }
        finally {
            nats.stop();
            nats.withConfig(MONITORING);
            nats.start();
        }
    }

    @Test
    void withoutMonitoringUrls_theSettingIsUnknown_andNotWarned(CapturedOutput output) {
        node().run(context -> {
            Map<String, Object> sync = details(context.getBean(JetStreamHealthIndicator.class).health(true), "sync");

            if (isOldServer()) {
                assertThat(sync).containsEntry("setting", "interval").containsEntry("source", "version");
            }
            else {
                assertThat(sync).containsEntry("setting", "unknown").doesNotContainKey("warning");
                assertThat((String) sync.get("note")).contains("does not tell clients");
                assertThat(output.getOut()).doesNotContain(WARNING);
                assertThat(gauge(context.getBean(MeterRegistry.class))).isEqualTo(-1);
            }
        });
    }

    private static StreamConfiguration tuned(Duration maxAge) {
        return StreamConfiguration.builder()
            .name("TUNED")
            .subjects("tuned.>")
            .storageType(StorageType.File)
            .maxAge(maxAge)
            .build();
    }

    private static double gauge(MeterRegistry registry) {
        return registry.get(ServerSyncGauge.NAME).gauge().value();
    }

    private static boolean isOldServer() throws IOException, InterruptedException {
        try (Connection connection = Nats.connect(nats.url())) {
            return !connection.getServerInfo().isSameOrNewerThanVersion("2.10.0");
        }
    }

    private static String serverName() throws IOException, InterruptedException {
        try (Connection connection = Nats.connect(nats.url())) {
            return connection.getServerInfo().getServerName();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> details(Object holder, String key) {
        Map<String, Object> map = holder instanceof Health health ? health.getDetails() : (Map<String, Object>) holder;
        return (Map<String, Object>) map.get(key);
    }

}
