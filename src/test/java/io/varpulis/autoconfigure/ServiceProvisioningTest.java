package io.varpulis.autoconfigure;

import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.autoconfigure.node.ClusterStreamsAutoConfiguration;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.AccountStatistics;
import io.nats.client.api.StreamInfo;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.messaging.NatsListener;
import io.varpulis.messaging.NatsTemplate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A service gets what it declares (issue 33, SPEC section 13), checked on a fresh
 * nats-server each: the server's stream list, and the storage the account reserves
 * ({@code /jsz}'s {@code reserved_storage}, the sum of the streams' max_bytes), which
 * only the service's own streams may take. A cluster node keeps the three ADR-007
 * streams.
 */
@BrokerTest
class ServiceProvisioningTest {

    /** One server per test: each starts from an empty account. */
    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final long ORDERS_MAX_BYTES = 8L * 1024 * 1024;

    static class OrderListener {

        final List<String> orders = new CopyOnWriteArrayList<>();

        @NatsListener(id = "orders", subject = "orders.>")
        void onOrder(String order) {
            orders.add(order);
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OrderService {

        @Bean
        OrderListener orderListener() {
            return new OrderListener();
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class EmptyService {

    }

    @Test
    void aServiceWithOneStreamAndOneListenerGetsThatStreamItsConsumerAndTheDlqOnlyReservingOnlyItsOwnBytes() {
        new ApplicationContextRunner().withUserConfiguration(OrderService.class)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.streams.ORDERS.subjects=orders.>",
                    "varpulis.nats.jetstream.streams.ORDERS.max-bytes=8MB")
            .run(context -> {
                assertThat(context).hasNotFailed();
                context.getBean(NatsTemplate.class).send("orders.eu", "o-1").get();
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> context.getBean(OrderListener.class).orders.contains("o-1"));

                JetStreamManagement jsm = context.getBean(Connection.class).jetStreamManagement();
                assertThat(jsm.getStreamNames()).containsExactlyInAnyOrder("ORDERS", VarpulisJetStream.DLQ_STREAM);
                assertThat(jsm.getConsumerNames("ORDERS")).containsExactly("orders");
                assertThat(jsm.getConsumerNames(VarpulisJetStream.DLQ_STREAM)).isEmpty();
                AccountStatistics account = jsm.getAccountStatistics();
                assertThat(account.getStreams()).isEqualTo(2);
                assertThat(account.getConsumers()).isEqualTo(1);
                assertThat(reservedStorage(context.getBean(Connection.class)))
                    .as("only ORDERS' max_bytes; the DLQ has none")
                    .isEqualTo(ORDERS_MAX_BYTES);
                assertThat(account.getReservedMemory()).isZero();
            });
    }

    @Test
    void aServiceThatDeclaresNothingCreatesNothingAndReservesNothing() throws Exception {
        new ApplicationContextRunner().withUserConfiguration(EmptyService.class)
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream")
            .run(context -> assertThat(context).hasNotFailed());
        try (Connection nc = Nats.connect(nats.url())) {
            JetStreamManagement jsm = nc.jetStreamManagement();
            assertThat(jsm.getStreamNames()).isEmpty();
            assertThat(reservedStorage(nc)).isZero();
        }
    }

    @Test
    void theLibraryAloneNeverDeclaresTheNodesStreamsEvenWithTheNodesProperty() throws Exception {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class, JetStreamAutoConfiguration.class))
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.enabled=true")
            .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(StreamDeclaration.class));
        try (Connection nc = Nats.connect(nats.url())) {
            assertThat(nc.jetStreamManagement().getStreamNames()).isEmpty();
        }
    }

    @Test
    void aClusterNodeKeepsTheThreeAdr007Streams() throws Exception {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(NatsAutoConfiguration.class, JetStreamAutoConfiguration.class,
                    ClusterStreamsAutoConfiguration.class))
            .withPropertyValues("varpulis.nats.url=" + nats.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.cluster.enabled=true")
            .run(context -> assertThat(context).hasNotFailed());
        try (Connection nc = Nats.connect(nats.url())) {
            JetStreamManagement jsm = nc.jetStreamManagement();
            assertThat(jsm.getStreamNames()).containsExactlyInAnyOrder(VarpulisJetStream.ROUTING_STREAM,
                    VarpulisJetStream.HEARTBEAT_STREAM, VarpulisJetStream.DLQ_STREAM);
            assertThat(reservedStorage(nc)).as("VARPULIS_ROUTING's 1 GiB").isEqualTo(1L << 30);
        }
    }

    /**
     * The file storage the account reserves, in bytes: the sum of the streams' max_bytes,
     * and {@code /jsz}'s {@code reserved_storage} equal to it where the server reports
     * one (nats-server 2.10 and later; 2.9 says 0).
     */
    private static long reservedStorage(Connection nc) throws Exception {
        JetStreamManagement jsm = nc.jetStreamManagement();
        long declared = 0;
        for (StreamInfo stream : jsm.getStreams()) {
            declared += Math.max(0, stream.getConfiguration().getMaxBytes());
        }
        if (nc.getServerInfo().isSameOrNewerThanVersion("2.10.0")) {
            assertThat(jsm.getAccountStatistics().getReservedStorage()).as("the server's reserved_storage")
                .isEqualTo(declared);
        }
        return declared;
    }

}
