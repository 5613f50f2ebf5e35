package io.varpulis.health;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.jetstream.DeclarationKeeper;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.metrics.JetStreamLossMeters;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the servers lost is shown where an operator looks (SPEC section 21): the
 * {@code jetstream} health's {@code losses}, each with its kind, stream and sentence, and
 * the {@code varpulis.jetstream.losses} counter; the component stays UP once what was
 * lost is declared again (a loss is history, not a state).
 */
@BrokerTest
class JetStreamLossesHealthTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void aStreamLostAndDeclaredAgainIsInTheHealthAndCounted() throws Exception {
        try (Connection connection = Nats.connect(nats.url()); Connection operator = Nats.connect(nats.url())) {
            JetStreamAdmin admin = new JetStreamAdmin(connection, null);
            admin.provision(List.of(new StreamDeclaration(StreamConfiguration.builder()
                .name("HEALTH_LOSS")
                .subjects("health.loss.>")
                .storageType(StorageType.File)
                .build())), List.of());
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new JetStreamLossMeters(admin.losses(), registry);
            try (DeclarationKeeper keeper = new DeclarationKeeper(connection, admin, Duration.ZERO, true);
                    JetStreamHealthIndicator health = new JetStreamHealthIndicator(admin, connection,
                            Duration.ofMillis(200), Duration.ofSeconds(60))) {
                health.start();
                keeper.check();
                operator.jetStreamManagement().deleteStream("HEALTH_LOSS");
                keeper.check();
                keeper.check();

                Health shown = await().atMost(Duration.ofSeconds(10))
                    .until(() -> health.health(true), h -> h.getDetails().containsKey("losses"));
                assertThat(shown.getStatus()).isEqualTo(Status.UP);
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> losses = (List<Map<String, Object>>) shown.getDetails().get("losses");
                assertThat(losses).singleElement().satisfies(loss -> {
                    assertThat(loss).containsEntry("kind", "stream-gone").containsEntry("stream", "HEALTH_LOSS");
                    assertThat(String.valueOf(loss.get("detail"))).contains("declaring it again");
                });
                assertThat(registry.get("varpulis.jetstream.losses")
                    .tags("kind", "stream-gone", "stream", "HEALTH_LOSS")
                    .counter()
                    .count()).isEqualTo(1);
            }
        }
    }

}
