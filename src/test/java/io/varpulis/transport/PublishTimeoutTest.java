package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A JetStream publish whose PubAck never comes fails for its caller within the publish
 * timeout, and frees its slot in the window of outstanding publishes.
 */
@BrokerTest
class PublishTimeoutTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void aPublishWithoutPubAckFailsWithinThePublishTimeout() throws Exception {
        try (Connection connection = Nats.connect(nats.url())) {
            // A core subscriber that never replies: the publish request gets neither a
            // PubAck nor "no responders".
            connection.createDispatcher().subscribe("silent.subject", msg -> {
            });
            connection.flush(Duration.ofSeconds(2));
            TransportSettings settings = new TransportSettings(1, Duration.ofMillis(300), 16);
            try (ClusterTransport transport = ClusterTransports.create(connection, Substrate.JETSTREAM,
                    new JetStreamAdmin(connection, null), settings)) {
                long started = System.nanoTime();
                CompletableFuture<PublishReceipt> first = transport.publish(OutboundMessage.of("silent.subject", "{}"));
                assertThatThrownBy(() -> first.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(PublishException.class)
                    .hasMessageContaining("no PubAck within 300 ms");
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));

                CompletableFuture<PublishReceipt> second = transport
                    .publish(OutboundMessage.of("silent.subject", "{}"));
                assertThatThrownBy(() -> second.get(5, TimeUnit.SECONDS))
                    .as("the window's only slot was given back by the timed-out publish")
                    .hasMessageContaining("no PubAck within 300 ms");
            }
        }
    }

}
