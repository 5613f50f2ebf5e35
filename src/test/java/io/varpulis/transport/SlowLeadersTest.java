package io.varpulis.transport;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 41, item 5 (SPEC section 20) on three clustered servers: a stream whose PubAcks
 * are much slower than another stream's, for two checks under the same leader, is stepped
 * down in favour of the faster stream's leader, once; nothing moves when every stream is
 * slow (a slow network, not a slow leader) or after a single slow check.
 */
@BrokerTest
class SlowLeadersTest {

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree()
        .from("2.11.0", "a step-down's preferred placement");

    private final StreamLatencies latencies = new StreamLatencies();

    private final List<String> steppedDown = new CopyOnWriteArrayList<>();

    private Connection connection;

    private JetStreamManagement jsm;

    @BeforeEach
    void connect() throws Exception {
        connection = Nats.connect(new Options.Builder().server(cluster.url())
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(-1)
            .build());
        jsm = connection.jetStreamManagement();
        for (String stream : List.of("SLOW", "FAST")) {
            if (!jsm.getStreamNames().contains(stream)) {
                jsm.addStream(StreamConfiguration.builder()
                    .name(stream)
                    .subjects(stream.toLowerCase() + ".>")
                    .replicas(3)
                    .storageType(StorageType.File)
                    .build());
            }
        }
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
    }

    @Test
    void aStreamTenTimesSlowerThanItsPeerForTwoChecksIsSteppedDown_once() throws Exception {
        SlowLeaders leaders = new SlowLeaders(connection, latencies, steppedDown::add);
        int before = cluster.streamLeader("SLOW");

        record(500, 2);
        leaders.check();
        assertThat(steppedDown).as("one slow check is not enough").isEmpty();
        record(500, 2);
        leaders.check();

        assertThat(steppedDown).containsExactly("SLOW");
        assertThat(awaitLeader("SLOW")).as("another server leads it").isNotEqualTo(before);
        record(500, 2);
        leaders.check();
        record(500, 2);
        leaders.check();
        assertThat(steppedDown).as("left alone for a minute after").containsExactly("SLOW");
    }

    @Test
    void aConsumerThisNodePullsFromWhoseLeaderIsTheServerFoundSlowIsSteppedDownToo() throws Exception {
        // Issue 41, slow-disk: the routing stream moved off the slow server, but the
        // route consumers it led kept a pipeline to a few acks a second.
        String durable = "slow_leaders_test";
        jsm.addOrUpdateConsumer("SLOW", ConsumerConfiguration.builder().durable(durable).build());
        int slowServer = cluster.streamLeader("SLOW");
        moveConsumerTo(durable, slowServer);
        latencies.consuming("SLOW", durable);
        SlowLeaders leaders = new SlowLeaders(connection, latencies, steppedDown::add);

        record(500, 2);
        leaders.check();
        record(500, 2);
        leaders.check();

        assertThat(steppedDown).containsExactly("SLOW", "SLOW > " + durable);
        assertThat(awaitConsumerLeader(durable)).as("another server leads it").isNotEqualTo(slowServer);
        leaders.check();
        assertThat(steppedDown).as("once").hasSize(2);
    }

    @Test
    void nothingMovesWhenEveryStreamIsSlow() {
        SlowLeaders leaders = new SlowLeaders(connection, latencies, steppedDown::add);
        for (int i = 0; i < 3; i++) {
            record(500, 400);
            leaders.check();
        }
        assertThat(steppedDown).isEmpty();
    }

    private void record(long slowMillis, long fastMillis) {
        for (int i = 0; i < 20; i++) {
            latencies.record("SLOW", Duration.ofMillis(slowMillis).toNanos());
            latencies.record("FAST", Duration.ofMillis(fastMillis).toNanos());
        }
    }

    private void moveConsumerTo(String durable, int server) throws Exception {
        for (int i = 0; i < 10 && awaitConsumerLeader(durable) != server; i++) {
            connection.request("$JS.API.CONSUMER.LEADER.STEPDOWN.SLOW." + durable,
                    ("{\"placement\":{\"preferred\":\"" + cluster.name(server) + "\"}}")
                        .getBytes(StandardCharsets.UTF_8),
                    Duration.ofSeconds(2));
        }
        assertThat(awaitConsumerLeader(durable)).as("the consumer led by the slow stream's leader").isEqualTo(server);
    }

    private int awaitConsumerLeader(String durable) {
        return awaitElected(() -> cluster.consumerLeader("SLOW", durable));
    }

    private int awaitLeader(String stream) {
        return awaitElected(() -> cluster.streamLeader(stream));
    }

    /**
     * Asks for a leader until one is elected (the cluster throws while it is electing).
     */
    private static int awaitElected(Callable<Integer> leader) {
        return await().atMost(Duration.ofSeconds(10))
            .ignoreException(IllegalStateException.class)
            .until(leader, Objects::nonNull);
    }

}
