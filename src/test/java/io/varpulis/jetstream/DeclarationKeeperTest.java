package io.varpulis.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import io.varpulis.transport.TransportSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a node declared and the servers lost under it (issue 43: a power loss without
 * {@code sync_interval: always} took every stream and consumer with it, and nothing was
 * declared again) is named, counted and declared again: a stream after it was found gone
 * twice in a row, with its sequences starting after the last one seen, then its
 * consumers; a stream another node declared again is a loss here too; with provisioning
 * off nothing is created. The loss is simulated by deleting the stream by hand, which the
 * node cannot tell from a power loss.
 */
@BrokerTest
class DeclarationKeeperTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private final List<AutoCloseable> opened = new ArrayList<>();

    private String stream;

    private JetStreamManagement operator;

    @BeforeEach
    void names() throws Exception {
        stream = "KEEP_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
        operator = connect().jetStreamManagement();
    }

    @AfterEach
    void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    @Test
    void aStreamAndItsConsumerGoneUnderARunningNodeAreNamedAndDeclaredAgainAfterTheirLastSequence() throws Exception {
        Connection connection = connect();
        JetStreamAdmin admin = new JetStreamAdmin(connection, null);
        admin.provision(List.of(stream()), List.of(consumer()));
        ClusterTransport transport = transport(connection, admin);
        for (int i = 0; i < 5; i++) {
            publish(transport, stream.toLowerCase() + ".edge");
        }
        DeclarationKeeper keeper = keeper(connection, admin, true);
        keeper.check();
        assertThat(admin.losses().recent()).isEmpty();

        operator.deleteStream(stream);
        keeper.check();
        assertThat(admin.losses().recent()).as("once could be a server still starting").isEmpty();
        keeper.check();

        assertThat(admin.losses().recent()).extracting(JetStreamLoss::kind)
            .containsExactly(JetStreamLoss.Kind.STREAM_GONE, JetStreamLoss.Kind.PUBLISHED_LOST,
                    JetStreamLoss.Kind.CONSUMER_GONE);
        assertThat(admin.losses().recent().get(0).detail()).contains("stream " + stream + " is gone",
                "sequences up to 5", "declaring it again");
        assertThat(admin.losses().recent().get(1).messages()).isEqualTo(5);
        assertThat(admin.losses().recent().get(1).name()).isEqualTo(stream.toLowerCase() + ".edge");
        assertThat(operator.getConsumerInfo(stream, "keeper_durable").getName()).isEqualTo("keeper_durable");
        // A stream's first_seq is a 2.10 setting: 2.9 ignores it and starts the stream
        // again at 1.
        boolean firstSeq = !connection.getServerInfo().isOlderThanVersion("2.10.0");
        assertThat(publish(transport, stream.toLowerCase() + ".edge").sequence())
            .as(firstSeq ? "no sequence is used twice" : "2.9 starts again at 1")
            .isEqualTo(firstSeq ? 6 : 1);

        keeper.check();
        assertThat(admin.losses().count()).as("said once").isEqualTo(3);
    }

    @Test
    void aStreamAnotherNodeDeclaredAgainIsALossHereToo() throws Exception {
        Connection first = connect();
        JetStreamAdmin firstAdmin = new JetStreamAdmin(first, null);
        firstAdmin.provision(List.of(stream()), List.of());
        Connection second = connect();
        JetStreamAdmin secondAdmin = new JetStreamAdmin(second, null);
        secondAdmin.provision(List.of(stream()), List.of());
        publish(transport(second, secondAdmin), stream.toLowerCase() + ".edge");
        DeclarationKeeper firstKeeper = keeper(first, firstAdmin, true);
        DeclarationKeeper secondKeeper = keeper(second, secondAdmin, true);
        firstKeeper.check();
        secondKeeper.check();

        operator.deleteStream(stream);
        firstKeeper.check();
        firstKeeper.check();
        secondKeeper.check();

        assertThat(secondAdmin.losses().recent()).extracting(JetStreamLoss::kind)
            .containsExactly(JetStreamLoss.Kind.STREAM_GONE, JetStreamLoss.Kind.PUBLISHED_LOST);
        assertThat(secondAdmin.losses().recent().get(0).detail()).contains("was created again");
        secondKeeper.check();
        assertThat(secondAdmin.losses().count()).as("its new sequences are not a stream gone back").isEqualTo(2);
    }

    @Test
    void withProvisioningOffALostStreamIsNamedAndNotCreated() throws Exception {
        Connection connection = connect();
        JetStreamAdmin admin = new JetStreamAdmin(connection, null);
        admin.provision(List.of(stream()), List.of());
        DeclarationKeeper keeper = keeper(connection, admin, false);
        keeper.check();

        operator.deleteStream(stream);
        keeper.check();
        keeper.check();
        keeper.check();

        assertThat(admin.losses().recent()).singleElement().satisfies(loss -> {
            assertThat(loss.kind()).isEqualTo(JetStreamLoss.Kind.STREAM_GONE);
            assertThat(loss.detail()).contains("provisioning is off");
        });
        assertThat(admin.streamInfo(stream)).isEmpty();
    }

    private StreamDeclaration stream() {
        return new StreamDeclaration(StreamConfiguration.builder()
            .name(stream)
            .subjects(stream.toLowerCase() + ".>")
            .storageType(StorageType.File)
            .build());
    }

    private ConsumerDeclaration consumer() {
        return new ConsumerDeclaration(stream,
                ConsumerConfiguration.builder()
                    .durable("keeper_durable")
                    .filterSubject(stream.toLowerCase() + ".edge")
                    .ackPolicy(AckPolicy.Explicit)
                    .build());
    }

    private DeclarationKeeper keeper(Connection connection, JetStreamAdmin admin, boolean redeclare) {
        DeclarationKeeper keeper = new DeclarationKeeper(connection, admin, Duration.ZERO, redeclare);
        opened.add(keeper);
        return keeper;
    }

    private ClusterTransport transport(Connection connection, JetStreamAdmin admin) {
        ClusterTransport transport = ClusterTransports.create(connection, Substrate.JETSTREAM, admin,
                TransportSettings.defaults());
        opened.add(transport);
        return transport;
    }

    private static PublishReceipt publish(ClusterTransport transport, String subject) throws Exception {
        return transport.publish(OutboundMessage.of(subject, "e")).get(5, TimeUnit.SECONDS);
    }

    private Connection connect() throws Exception {
        Connection connection = Nats.connect(new Options.Builder().server(nats.url())
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(-1)
            .build());
        opened.add(connection);
        return connection;
    }

}
