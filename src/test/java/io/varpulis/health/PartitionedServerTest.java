package io.varpulis.health;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.autoconfigure.LeaderReachProperties;
import io.varpulis.jetstream.LeaderReachReconnect;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 25, item 6, under a real partition: {@code n3}'s routes pass through a proxy that
 * drops every byte, so {@code n3} stays up and keeps answering its clients' pings while
 * it cannot reach {@code n1} and {@code n2}, which keep a majority. A node connected to
 * {@code n3} (where a client would stay for the whole partition) sees its
 * {@code jetstream} health DOWN naming {@code n3}, reconnects to the majority after
 * {@code reconnect-after}, is UP there and publishes to its R3 stream while the partition
 * lasts. The times are printed ({@code PARTITION ...}).
 */
@BrokerTest
class PartitionedServerTest {

    private static final String STREAM = "PARTITIONED";

    private static final Duration RECONNECT_AFTER = Duration.ofSeconds(5);

    private static final Duration WAIT = Duration.ofSeconds(90);

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree().withPartitionableServer(2);

    @Test
    void aNodeOnTheMinoritySideReconnectsToTheMajorityAndPublishesThereWhileThePartitionLasts() throws Exception {
        Options options = new Options.Builder().servers(new String[] { cluster.url(2), cluster.url(0), cluster.url(1) })
            .noRandomize()
            .connectionTimeout(Duration.ofSeconds(1))
            .reconnectWait(Duration.ofMillis(200))
            .maxReconnects(-1)
            .build();
        LeaderReachProperties reach = new LeaderReachProperties();
        reach.setReconnectAfter(RECONNECT_AFTER);
        reach.setCheckInterval(Duration.ofSeconds(1));
        try (Connection connection = Nats.connect(options)) {
            assertThat(connection.getServerInfo().getServerName()).isEqualTo("n3");
            JetStreamAdmin admin = new JetStreamAdmin(connection, null);
            admin.declareStream(new StreamDeclaration(StreamConfiguration.builder()
                .name(STREAM)
                .subjects("partitioned.>")
                .storageType(StorageType.File)
                .replicas(3)
                .build()));
            try (JetStreamHealthIndicator health = new JetStreamHealthIndicator(admin, connection,
                    Duration.ofSeconds(1), Duration.ZERO);
                    LeaderReachReconnect policy = new LeaderReachReconnect(connection, admin, reach.toSettings())) {
                health.start();
                await().atMost(WAIT).until(() -> health.health(true).getStatus().equals(Status.UP));

                long cut = System.nanoTime();
                cluster.partition();
                try {
                    Health down = await().atMost(WAIT)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> health.health(true), h -> h.getStatus().equals(Status.DOWN));
                    long toDown = millisSince(cut);
                    assertThat(down.getDetails()).containsEntry("server", "n3");
                    Health up = await().atMost(WAIT)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> health.health(true), h -> h.getStatus().equals(Status.UP));
                    long toUp = millisSince(cut);
                    assertThat(up.getDetails().get("server")).isIn("n1", "n2");
                    assertThat(policy.reconnects()).isGreaterThanOrEqualTo(1);
                    assertThat(connection.jetStream()
                        .publish("partitioned.event", "during the partition".getBytes(StandardCharsets.UTF_8))
                        .getStream()).isEqualTo(STREAM);
                    System.out.printf(
                            "PARTITION jetstream DOWN after %d ms, UP on %s after %d ms " + "(reconnect-after %d ms)%n",
                            toDown, up.getDetails().get("server"), toUp, RECONNECT_AFTER.toMillis());
                }
                finally {
                    cluster.heal();
                }
                await().atMost(WAIT).until(() -> health.health(true).getStatus().equals(Status.UP));
            }
        }
    }

    private static long millisSince(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos).toMillis();
    }

}
