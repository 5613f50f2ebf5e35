package io.varpulis.jetstream;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.StorageType;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node that starts while its JetStream cluster cannot answer (no meta leader: two of
 * three servers down, as in an election after a kill) does not fail: creating its
 * key-value bucket asks again until the cluster answers (found by a newcomer run: a
 * worker started during an election exited with "Timeout or no response").
 */
@BrokerTest
class KeyValueBucketsTest {

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree();

    @Test
    void aBucketCreatedWhileTheClusterHasNoQuorumIsCreatedOnceItAnswersAgain() throws Exception {
        Options options = new Options.Builder().server(cluster.url(0))
            .connectionTimeout(Duration.ofSeconds(5))
            .maxReconnects(-1)
            .build();
        try (Connection connection = Nats.connect(options)) {
            cluster.kill(1);
            cluster.kill(2);
            CompletableFuture<KeyValueStatus> created = CompletableFuture.supplyAsync(() -> {
                try {
                    return KeyValueBuckets.createIfAbsent(connection.keyValueManagement(),
                            KeyValueConfiguration.builder()
                                .name("kv_no_quorum")
                                .storageType(StorageType.File)
                                .replicas(3)
                                .build());
                }
                catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().during(Duration.ofSeconds(6))
                .atMost(Duration.ofSeconds(8))
                .untilAsserted(() -> assertThat(created).as("still asking while nobody answers").isNotDone());
            cluster.start(1);
            cluster.start(2);

            KeyValueStatus status = created.get(60, TimeUnit.SECONDS);
            assertThat(status.getBucketName()).isEqualTo("kv_no_quorum");
            assertThat(status.getReplicas()).isEqualTo(3);
        }
    }

    @Test
    void aBucketOpenedWhileItsStreamHasNoLeaderOpensOnceItAnswersAgain() throws Exception {
        try (Connection creator = Nats.connect(cluster.url(0))) {
            KeyValueBuckets.createIfAbsent(creator.keyValueManagement(),
                    KeyValueConfiguration.builder()
                        .name("kv_open_no_quorum")
                        .storageType(StorageType.File)
                        .replicas(3)
                        .build());
        }
        // The survivor is a follower of the bucket's stream: with its leader and the
        // third server gone, nobody answers the open's read, whatever the release.
        int leader = cluster.streamLeader("KV_kv_open_no_quorum");
        int survivor = (leader + 1) % 3;
        int third = (leader + 2) % 3;
        Options options = new Options.Builder().server(cluster.url(survivor))
            .connectionTimeout(Duration.ofSeconds(5))
            .maxReconnects(-1)
            .build();
        try (Connection connection = Nats.connect(options)) {
            cluster.kill(leader);
            cluster.kill(third);
            CompletableFuture<io.nats.client.KeyValue> opened = CompletableFuture.supplyAsync(() -> {
                try {
                    return KeyValueBuckets.open(connection, "kv_open_no_quorum",
                            io.nats.client.KeyValueOptions.builder().jsRequestTimeout(Duration.ofSeconds(1)).build());
                }
                catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().during(Duration.ofSeconds(4))
                .atMost(Duration.ofSeconds(6))
                .untilAsserted(() -> assertThat(opened).as("still asking while nobody answers").isNotDone());
            cluster.start(leader);
            cluster.start(third);

            assertThat(opened.get(60, TimeUnit.SECONDS).getBucketName()).isEqualTo("kv_open_no_quorum");
        }
    }

}
