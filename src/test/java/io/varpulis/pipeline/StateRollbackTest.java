package io.varpulis.pipeline;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.JetStreamLoss;
import io.varpulis.jetstream.JetStreamLosses;
import io.varpulis.nats.Substrate;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestThreads;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.TransportSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A pipeline's state bucket that went back under its writer (issue 43: a power loss
 * without {@code sync_interval: always} left detect's and alerts' buckets with fewer
 * messages than they had acknowledged, and the writer mended its chain on the shorter
 * bucket every 2 s for ever, saying nothing above INFO) is named as a loss and stops the
 * writer, so that its pipeline is placed again on what the bucket holds. Simulated by
 * emptying the bucket by hand (deleted and created again), which the writer cannot tell
 * from a power loss.
 */
@BrokerTest
class StateRollbackTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final JetStreamKeyValueState.Settings SETTINGS = new JetStreamKeyValueState.Settings(
            Duration.ofHours(1), 1, Duration.ofSeconds(2), 100_000);

    @Test
    void aBucketThatWentBackBelowTheWritersConfirmedWritesIsALossAndStopsTheWriter() throws Exception {
        String bucket = "varpulis_state_rollback_" + UUID.randomUUID().toString().substring(0, 8);
        JetStreamLosses losses = new JetStreamLosses();
        try (Connection connection = connect();
                Connection operator = connect();
                ClusterTransport transport = transport(connection);
                JetStreamKeyValueState state = open(connection, transport, bucket, losses)) {
            for (int i = 0; i < 5; i++) {
                state.put("bf." + i, bytes("1"));
            }
            state.flush().get(5, TimeUnit.SECONDS);

            operator.jetStreamManagement().deleteStream("KV_" + bucket);
            operator.keyValueManagement()
                .create(KeyValueConfiguration.builder()
                    .name(bucket)
                    .maxHistoryPerKey(1)
                    .ttl(Duration.ofHours(1))
                    .storageType(StorageType.File)
                    .build());
            state.put("bf.5", bytes("1"));

            assertThatThrownBy(() -> state.flush().get(40, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(KeyValueState.StateFencedException.class)
                .hasMessageContaining("the servers lost confirmed writes");
            assertThat(losses.recent()).singleElement().satisfies(loss -> {
                assertThat(loss.kind()).isEqualTo(JetStreamLoss.Kind.STATE_WENT_BACK);
                assertThat(loss.name()).isEqualTo(bucket);
                assertThat(loss.lastSequence()).as("the writer's last confirmed write: the fence and 5 keys")
                    .isEqualTo(6);
                assertThat(loss.detail()).contains("state bucket " + bucket + " went back");
            });
        }
    }

    @Test
    void aBucketGoneUnderItsWriterIsALossAndStopsTheWriter() throws Exception {
        String bucket = "varpulis_state_gone_" + UUID.randomUUID().toString().substring(0, 8);
        JetStreamLosses losses = new JetStreamLosses();
        try (Connection connection = connect();
                Connection operator = connect();
                ClusterTransport transport = transport(connection);
                JetStreamKeyValueState state = open(connection, transport, bucket, losses)) {
            state.put("bf.0", bytes("1"));
            state.flush().get(5, TimeUnit.SECONDS);

            operator.jetStreamManagement().deleteStream("KV_" + bucket);
            state.put("bf.1", bytes("1"));

            assertThatThrownBy(() -> state.flush().get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(KeyValueState.StateFencedException.class)
                .hasMessageContaining("state bucket " + bucket + " was deleted");
            assertThat(losses.recent()).singleElement().satisfies(loss -> {
                assertThat(loss.kind()).isEqualTo(JetStreamLoss.Kind.STATE_WENT_BACK);
                assertThat(loss.detail()).contains("state bucket " + bucket + " is gone under its writer");
            });
        }
    }

    @Test
    void aBucketFoundGoneByAReadIsOneLoss_howeverManyReadsAndWritesMeetIt() throws Exception {
        String bucket = "varpulis_state_read_gone_" + UUID.randomUUID().toString().substring(0, 8);
        JetStreamLosses losses = new JetStreamLosses();
        try (Connection connection = connect();
                Connection operator = connect();
                ClusterTransport transport = transport(connection);
                JetStreamKeyValueState state = open(connection, transport, bucket, losses)) {
            state.put("bf.0", bytes("1"));
            state.flush().get(5, TimeUnit.SECONDS);

            operator.jetStreamManagement().deleteStream("KV_" + bucket);

            assertThatThrownBy(state::verifyOwnership).isInstanceOf(KeyValueState.StateLostException.class)
                .hasMessageContaining("state bucket " + bucket + " was deleted");
            assertThatThrownBy(() -> state.get("bf.other")).isInstanceOf(KeyValueState.StateFencedException.class);
            assertThatThrownBy(state::verifyOwnership).isInstanceOf(KeyValueState.StateFencedException.class);
            assertThatThrownBy(() -> state.flush().get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
            assertThat(losses.recent()).singleElement().satisfies(loss -> {
                assertThat(loss.kind()).isEqualTo(JetStreamLoss.Kind.STATE_WENT_BACK);
                assertThat(loss.detail()).contains("state bucket " + bucket + " is gone under its writer");
            });
        }
    }

    private static ClusterTransport transport(Connection connection) {
        return ClusterTransports.create(connection, Substrate.JETSTREAM, new JetStreamAdmin(connection, null),
                TransportSettings.defaults());
    }

    /** Opens the state at epoch 1, its losses recorded in {@code losses}. */
    private static JetStreamKeyValueState open(Connection connection, ClusterTransport transport, String bucket,
            JetStreamLosses losses) {
        return JetStreamKeyValueState.open(connection, transport, bucket, 1, SETTINGS, TestThreads.states(),
                new StateLosses(() -> {
                }, new StateRollback(losses)));
    }

    private static Connection connect() throws Exception {
        return Nats.connect(new Options.Builder().server(nats.url())
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(-1)
            .build());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

}
