package io.varpulis.substrate;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.VarpulisClusterApplication;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.StreamDeclaration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import io.varpulis.test.TestCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SPEC sections 3 and 9 (issue 25, item 5): on a three-server cluster where one server's
 * JetStream store is 64 MB, an R3 stream whose 1 GiB max_bytes that server cannot reserve
 * ("no suitable peers for placement, insufficient storage", 10005) is created bounded by
 * max_age only, with a WARN, and a node starts; a stream with more replicas than servers
 * still fails, with a message that names the replicas and the servers.
 */
@BrokerTest
@ExtendWith(OutputCaptureExtension.class)
class SmallStoreOnClusterTest {

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree().withJetStream(2, "max_file_store: 64MB");

    @Test
    void anR3StreamOneSmallStoreCannotReserveIsCreatedBoundedByMaxAgeOnly_withAWarn(CapturedOutput output)
            throws Exception {
        try (Connection connection = Nats.connect(cluster.url())) {
            StreamDeclaration routing = declaration("SMALL_STORE_ROUTING", 3);
            StreamConfiguration created = new JetStreamAdmin(connection, null).declareStream(routing)
                .getConfiguration();
            assertThat(created.getMaxBytes()).isEqualTo(-1);
            assertThat(created.getMaxAge()).isEqualTo(Duration.ofHours(1));
            assertThat(created.getReplicas()).isEqualTo(3);
            assertThat(output.getOut())
                .contains("cannot reserve max_bytes=1073741824 for stream SMALL_STORE_ROUTING " + "(3 replica(s))")
                .contains("bounded by max_age=1h only");
        }
    }

    @Test
    void aStreamWithMoreReplicasThanServersStillFails_namingTheReplicasAndTheServers(CapturedOutput output)
            throws Exception {
        try (Connection connection = Nats.connect(cluster.url())) {
            JetStreamAdmin admin = new JetStreamAdmin(connection, null);
            assertThatThrownBy(() -> admin.declareStream(declaration("FIVE_REPLICAS", 5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("stream FIVE_REPLICAS asks for 5 replica(s)")
                .hasMessageContaining("no suitable peers for placement")
                .hasMessageContaining("which knows the servers [")
                .hasMessageContaining("varpulis.nats.jetstream.replicas");
            assertThat(admin.streamInfo("FIVE_REPLICAS")).isEmpty();
            assertThat(output.getAll()).as("too few servers is not about max_bytes: no fallback, no WARN about it")
                .doesNotContain("for stream FIVE_REPLICAS (5 replica(s))");
        }
    }

    @Test
    void aNodeStartsOnTheClusterWithTheWarn(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext node = new SpringApplicationBuilder(VarpulisClusterApplication.class)
            .properties("server.port=0", "varpulis.nats.url=" + cluster.url(), "varpulis.nats.substrate=jetstream",
                    "varpulis.nats.jetstream.replicas=3", "varpulis.cluster.coordinator-id=small-store",
                    "varpulis.cluster.worker-id=small-store-w",
                    "spring.security.user.password=" + TestCredentials.PASSWORD)
            .run(); Connection connection = Nats.connect(cluster.url())) {
            assertThat(node.isRunning()).isTrue();
            StreamConfiguration routing = connection.jetStreamManagement()
                .getStreamInfo(VarpulisJetStream.ROUTING_STREAM)
                .getConfiguration();
            assertThat(routing.getMaxBytes()).isEqualTo(-1);
            assertThat(routing.getReplicas()).isEqualTo(3);
            assertThat(output.getOut())
                .contains("cannot reserve max_bytes=1073741824 for stream " + VarpulisJetStream.ROUTING_STREAM);
        }
    }

    /**
     * The routing stream's settings (max_age 1 h, max_bytes 1 GiB) under another name and
     * replicas.
     */
    private static StreamDeclaration declaration(String name, int replicas) {
        StreamConfiguration routing = VarpulisJetStream.routingStream(replicas).configuration();
        return new StreamDeclaration(StreamConfiguration.builder(routing)
            .name(name)
            .subjects("small-store." + name.toLowerCase() + ".>")
            .build());
    }

}
