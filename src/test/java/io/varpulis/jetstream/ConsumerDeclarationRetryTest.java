package io.varpulis.jetstream;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A durable consumer declared while its JetStream cluster cannot answer (two of three
 * servers down) is asked for again until the cluster answers, as streams and key-value
 * buckets are (issue 43: a coordinator exited at start-up with "cannot provision consumer
 * hb_...: Timeout or no response" after a power loss).
 */
@BrokerTest
class ConsumerDeclarationRetryTest {

    @RegisterExtension
    static final NatsClusterExtension cluster = NatsClusterExtension.ofThree();

    @Test
    void aConsumerDeclaredWhileTheClusterHasNoQuorumIsCreatedOnceItAnswersAgain() throws Exception {
        Options options = new Options.Builder().server(cluster.url(0))
            .connectionTimeout(Duration.ofSeconds(5))
            .maxReconnects(-1)
            .build();
        try (Connection connection = Nats.connect(options)) {
            JetStreamAdmin admin = new JetStreamAdmin(connection, null);
            admin.provision(List.of(new StreamDeclaration(StreamConfiguration.builder()
                .name("RETRY_CONSUMER")
                .subjects("retry.consumer.>")
                .storageType(StorageType.File)
                .replicas(3)
                .build())), List.of());
            cluster.kill(1);
            cluster.kill(2);
            CompletableFuture<ConsumerInfo> declared = CompletableFuture
                .supplyAsync(() -> admin.declareConsumer(new ConsumerDeclaration("RETRY_CONSUMER",
                        ConsumerConfiguration.builder()
                            .durable("hb_retry")
                            .filterSubject("retry.consumer.>")
                            .ackPolicy(AckPolicy.Explicit)
                            .build())));
            await().during(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(7))
                .untilAsserted(() -> assertThat(declared).as("still asking while nobody answers").isNotDone());
            cluster.start(1);
            cluster.start(2);

            assertThat(declared.get(60, TimeUnit.SECONDS).getName()).isEqualTo("hb_retry");
        }
    }

}
