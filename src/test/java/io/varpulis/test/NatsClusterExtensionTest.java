package io.varpulis.test;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The test cluster is the production topology: three servers, an R3 stream, its leader
 * killed with SIGKILL and another elected, the killed server restarted and caught up.
 */
@BrokerTest
class NatsClusterExtensionTest {

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree();

    @Test
    void anR3StreamSurvivesItsLeaderKilledAndTheServerRejoins() throws Exception {
        Options options = new Options.Builder().servers(cluster.url().split(","))
            .maxReconnects(-1)
            .reconnectWait(Duration.ofMillis(100))
            .build();
        try (Connection connection = Nats.connect(options)) {
            JetStreamManagement jsm = connection.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                .name("R3")
                .subjects("r3.>")
                .replicas(3)
                .storageType(StorageType.File)
                .build());
            JetStream js = connection.jetStream();
            js.publish("r3.a", "before".getBytes(StandardCharsets.UTF_8));

            int leader = cluster.streamLeader("R3");
            cluster.kill(leader);
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> cluster.streamLeader("R3") != leader);
            await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> js.publish("r3.b", "after".getBytes(StandardCharsets.UTF_8)).getSeqno() == 2);

            cluster.start(leader);
            await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> jsm.getStreamInfo("R3")
                    .getClusterInfo()
                    .getReplicas()
                    .stream()
                    .allMatch(r -> r.isCurrent() && !r.isOffline()));
            assertThat(jsm.getStreamInfo("R3").getStreamState().getMsgCount()).isEqualTo(2);
        }
    }

}
