package io.varpulis.health;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 25, item 6, on a real nats-server: a server whose JetStream is off turns the
 * {@code jetstream} health component DOWN at once, naming the server, although problems
 * otherwise wait {@code down-after} (here 60 s). A server whose store filled ("out of
 * resources, will be DISABLED") shows the same to a node that (re)connects to it: its
 * INFO says {@code jetstream=false}. The disk-full case itself was not reproducible on
 * nats-server 2.12.15 (a full tmpfs store refused writes with 10077 "no space left on
 * device" on a single server, and made a follower log "expected sequence does not match
 * store", JetStream staying on), so the server here runs without JetStream.
 */
@BrokerTest
class JetStreamDisabledServerTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.coreOnly();

    @Test
    void aServerWhoseJetStreamIsOffTurnsTheJetStreamComponentDownAtOnceNamingIt() throws Exception {
        try (Connection connection = Nats.connect(nats.url());
                JetStreamHealthIndicator health = new JetStreamHealthIndicator(new JetStreamAdmin(connection, null),
                        connection, Duration.ofSeconds(1), Duration.ofSeconds(60))) {
            health.start();
            String server = connection.getServerInfo().getServerName();
            Health down = await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> health.health(true), h -> h.getStatus().equals(Status.DOWN));
            assertThat(down.getDetails()).containsEntry("server", server);
            assertThat(String.valueOf(down.getDetails().get("reason")))
                .contains("JetStream is disabled on the connected server (server " + server + ")")
                .contains("out of resources, will be DISABLED")
                .contains("restart it");
        }
    }

}
