package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;
import io.varpulis.cluster.TestGroups;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.jetstream.JetStreamLoss;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Pipeline groups the servers lost from the group store (issue 43: a power loss without
 * {@code sync_interval: always} left {@code varpulis_groups} empty, and a coordinator
 * started later would not have known the running group) are written back from a
 * coordinator's memory once the bucket answers again. Simulated by emptying the bucket by
 * hand (deleted, then created again as the node's keeper does).
 */
@BrokerTest
class LostGroupsRestoreTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void aGroupTheStoreLostIsWrittenBackFromMemory() throws Exception {
        try (Connection connection = Nats.connect(nats.url())) {
            GroupStore store = GroupStore.jetStream(connection, new ObjectMapper(), 1, "east", TestThreads.scheduler());
            ClusterState state = new ClusterState(Clock.systemUTC());
            store.create(TestGroups.threeStages("kept"));
            state.addGroup(TestGroups.threeStages("kept"));
            GroupDeclarations declarations = new GroupDeclarations(null, state, null, store, null, null, null);

            connection.jetStreamManagement().deleteStream("KV_" + ControlPlaneBuckets.GROUPS);
            new LostGroupsRestore(declarations, TestThreads.scheduler()).accept(new JetStreamLoss(
                    JetStreamLoss.Kind.BUCKET_GONE, "KV_" + ControlPlaneBuckets.GROUPS, ControlPlaneBuckets.GROUPS, 1,
                    1, -1, "key-value bucket varpulis_groups is gone", Instant.now()));
            connection.keyValueManagement()
                .create(KeyValueConfiguration.builder()
                    .name(ControlPlaneBuckets.GROUPS)
                    .maxHistoryPerKey(1)
                    .storageType(StorageType.File)
                    .build());

            await().atMost(Duration.ofSeconds(20)).until(() -> store.holds("kept"));
            assertThat(declarations.restore()).as("once").isZero();
        }
    }

}
