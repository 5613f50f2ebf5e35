package io.varpulis.demo;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 25, the fault suite's partition scenario, as a test: the demo's connection is on
 * {@code n3}, which leads the R3 stream it reads, when {@code n3} is cut off from
 * {@code n1} and {@code n2} (its routes dropped by a proxy, its clients still connected).
 * The majority elects a leader and stores more messages; {@link MajorityReads} sees that
 * {@code n3}'s answers are not the majority's, moves the connection to {@code n1} or
 * {@code n2}, and the stream's count read afterwards is the majority's, not the one
 * {@code n3} remembers.
 */
@BrokerTest
class MajorityReadsTest {

    private static final String STREAM = "MAJORITY_READS";

    private static final Duration WAIT = Duration.ofSeconds(90);

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree().withPartitionableServer(2);

    @Test
    void aReaderOnTheCutOffLeaderMovesToTheMajorityAndReadsItsCount() throws Exception {
        Options onN3 = new Options.Builder().servers(new String[] { cluster.url(2), cluster.url(0), cluster.url(1) })
            .noRandomize()
            .connectionTimeout(Duration.ofSeconds(1))
            .reconnectWait(Duration.ofMillis(200))
            .maxReconnects(-1)
            .build();
        try (Connection reader = Nats.connect(onN3);
                Connection majority = Nats
                    .connect(new Options.Builder().server(cluster.url(0)).maxReconnects(-1).build())) {
            assertThat(reader.getServerInfo().getServerName()).isEqualTo("n3");
            JetStreamManagement jsm = reader.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                .name(STREAM)
                .subjects("majority.>")
                .storageType(StorageType.File)
                .replicas(3)
                .build());
            await().atMost(WAIT).pollInterval(Duration.ofSeconds(1)).until(() -> leadsOrStepDown(reader, "n3"));
            for (int i = 0; i < 10; i++) {
                reader.jetStream().publish("majority.before", bytes("before " + i));
            }
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            MajorityReads reads = new MajorityReads(reader, List.of(STREAM),
                    new PrintStream(printed, true, StandardCharsets.UTF_8));
            await().atMost(WAIT).until(() -> reads.view().majority());

            cluster.partition();
            try {
                // The majority elects a leader of its own and stores ten more.
                for (int i = 0; i < 10; i++) {
                    int n = i;
                    await().atMost(WAIT)
                        .ignoreExceptions()
                        .until(() -> majority.jetStream().publish("majority.during", bytes("during " + n)) != null);
                }
                await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> !reads.view().majority());
                reads.await(System.nanoTime() + WAIT.toNanos());
                assertThat(reader.getServerInfo().getServerName()).isIn("n1", "n2");
                assertThat(reads.reconnects()).isGreaterThanOrEqualTo(1);
                assertThat(reader.jetStreamManagement().getStreamInfo(STREAM).getStreamState().getMsgCount())
                    .as("the majority's count, not the 10 n3 remembers")
                    .isEqualTo(20);
                assertThat(printed.toString(StandardCharsets.UTF_8))
                    .contains("leaving NATS server n3, cut off from the cluster's majority");
            }
            finally {
                cluster.heal();
            }
        }
    }

    /**
     * @return whether {@code server} leads the stream; if not, asks the leader to step
     * down in its favour (a server before 2.11 refuses the preferred placement: then it
     * steps down to a random peer, asked again until it is {@code server})
     */
    private static boolean leadsOrStepDown(Connection connection, String server) throws Exception {
        String leader = connection.jetStreamManagement().getStreamInfo(STREAM).getClusterInfo().getLeader();
        if (server.equals(leader)) {
            return true;
        }
        String stepDown = "$JS.API.STREAM.LEADER.STEPDOWN." + STREAM;
        Message answer = connection.request(stepDown, bytes("{\"placement\":{\"preferred\":\"" + server + "\"}}"),
                Duration.ofSeconds(5));
        if (answer != null && new String(answer.getData(), StandardCharsets.UTF_8).contains("\"error\"")) {
            connection.request(stepDown, new byte[0], Duration.ofSeconds(5));
        }
        return false;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

}
