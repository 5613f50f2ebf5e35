package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 41, item 5, the slow-disk run with the step-down on where 706 of 800 alerts were
 * late: three servers with {@code sync_interval: always}, one of them made slow (strace
 * delays each of its fsyncs by 100 ms) while it leads a durable consumer but not its
 * stream. Its replica falls behind, and the consumer, which delivers only what its
 * leader's replica holds, is stepped down to the stream's leader by a node that never
 * found any stream slow; before the server is slowed, nothing moves.
 */
@BrokerTest
class SlowLeadersBehindReplicaTest {

    private static final String STREAM = "BEHIND";

    private static final String DURABLE = "behind_test";

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree()
        .withJetStream("sync_interval: always")
        .from("2.11.0", "sync_interval (2.10) and a consumer step-down's preferred placement (2.11)");

    @Test
    void aConsumerLedByAReplicaFarBehindItsStreamIsSteppedDownToTheStreamLeader_andDeliversEverything()
            throws Exception {
        List<String> steppedDown = new CopyOnWriteArrayList<>();
        StreamLatencies latencies = new StreamLatencies();
        try (Connection connection = Nats.connect(cluster.url())) {
            JetStreamManagement jsm = connection.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                .name(STREAM)
                .subjects("behind.>")
                .replicas(3)
                .storageType(StorageType.File)
                .build());
            jsm.addOrUpdateConsumer(STREAM, ConsumerConfiguration.builder().durable(DURABLE).build());
            int streamLeader = cluster.streamLeader(STREAM);
            int slow = (streamLeader + 1) % cluster.size();
            moveConsumerTo(connection, slow);
            latencies.consuming(STREAM, DURABLE);
            SlowLeaders leaders = new SlowLeaders(connection, latencies, steppedDown::add);

            leaders.check();
            leaders.check();
            assertThat(steppedDown).as("a current replica's consumer is left alone").isEmpty();

            Process strace = new ProcessBuilder("strace", "-f", "-qq", "-e", "trace=fsync,fdatasync", "-e",
                    "inject=fsync,fdatasync:delay_enter=100ms", "-o", "/dev/null", "-p",
                    String.valueOf(cluster.pid(slow)))
                .redirectErrorStream(true)
                .start();
            try {
                JetStream js = connection.jetStream();
                // One publish at a time, each its own raft entry: the slow replica fsyncs
                // each, 100 ms apiece, and falls behind.
                int[] published = { 0 };
                await("the slow server's replica is behind").atMost(Duration.ofSeconds(30)).until(() -> {
                    for (int i = 0; i < 50; i++) {
                        js.publish("behind.x", ("m" + published[0]++).getBytes(StandardCharsets.UTF_8));
                    }
                    return lag(jsm, cluster.name(slow)) >= SlowLeaders.BEHIND;
                });
                int messages = published[0];

                leaders.check();
                assertThat(steppedDown).as("one check behind is not enough").isEmpty();
                leaders.check();

                assertThat(steppedDown).containsExactly(STREAM + " > " + DURABLE);
                await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .until(() -> cluster.consumerLeader(STREAM, DURABLE) != slow);
                assertThat(lag(jsm, cluster.name(slow))).as("still behind: the step-down did not wait for it")
                    .isGreaterThan(0);
                io.nats.client.JetStreamSubscription subscription = js.subscribe(null,
                        io.nats.client.PullSubscribeOptions.bind(STREAM, DURABLE));
                List<Message> got = new ArrayList<>();
                await("every stored message delivered").atMost(Duration.ofSeconds(15)).until(() -> {
                    got.addAll(subscription.fetch(messages, Duration.ofSeconds(1)));
                    return got.size() >= messages;
                });
                assertThat(got).hasSize(messages);
            }
            finally {
                strace.destroy();
                strace.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static long lag(JetStreamManagement jsm, String server) throws Exception {
        return jsm.getStreamInfo(STREAM)
            .getClusterInfo()
            .getReplicas()
            .stream()
            .filter(r -> server.equals(r.getName()) && !r.isCurrent())
            .mapToLong(r -> r.getLag())
            .findFirst()
            .orElse(0);
    }

    private void moveConsumerTo(Connection connection, int server) throws Exception {
        for (int i = 0; i < 10 && consumerLeader() != server; i++) {
            connection.request("$JS.API.CONSUMER.LEADER.STEPDOWN." + STREAM + "." + DURABLE,
                    ("{\"placement\":{\"preferred\":\"" + cluster.name(server) + "\"}}")
                        .getBytes(StandardCharsets.UTF_8),
                    Duration.ofSeconds(2));
        }
        assertThat(consumerLeader()).as("the consumer led by a server that does not lead the stream").isEqualTo(server);
    }

    private static int consumerLeader() {
        return await().atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .until(() -> cluster.consumerLeader(STREAM, DURABLE), leader -> leader >= 0);
    }

}
