package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.varpulis.cluster.TestGroups;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import io.varpulis.test.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The group store's re-read beside its watch ({@link JetStreamGroupStore#resync}): a
 * coordinator whose watch missed a declaration or a delete (its ordered consumer could
 * not be re-created after a server of the cluster was killed, seen on nats-server 2.9 in
 * {@link ControlPlaneOnNatsClusterTest}) learns it from the store itself, once, and never
 * learns another cluster's groups.
 */
@BrokerTest
class GroupStoreResyncTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    @Test
    void aReReadTellsWhatTheWatchMissedOnceAndNothingOfOtherClusters() throws Exception {
        try (Connection connection = Nats.connect(nats.url())) {
            ObjectMapper mapper = new ObjectMapper();
            JetStreamGroupStore store = (JetStreamGroupStore) GroupStore.jetStream(connection, mapper, 1, "east",
                    TestThreads.scheduler());
            GroupStore other = GroupStore.jetStream(connection, mapper, 1, "west", TestThreads.scheduler());
            Recorder told = new Recorder();

            store.create(TestGroups.threeStages("g1"));
            other.create(TestGroups.threeStages("theirs"));
            store.resync(told);
            assertThat(told.events).containsExactly("stored g1");

            store.resync(told);
            assertThat(told.events).as("a group told already is not told again").containsExactly("stored g1");

            store.delete("g1");
            store.create(TestGroups.threeStages("g2"));
            store.resync(told);
            assertThat(told.events).containsExactlyInAnyOrder("stored g1", "removed g1", "stored g2");
        }
    }

    @Test
    void aGroupTheWatchToldIsNotToldAgainByTheReRead() throws Exception {
        try (Connection connection = Nats.connect(nats.url())) {
            JetStreamGroupStore store = (JetStreamGroupStore) GroupStore.jetStream(connection, new ObjectMapper(), 1,
                    "north", TestThreads.scheduler());
            Recorder told = new Recorder();
            try (AutoCloseable ignored = store.watch(told)) {
                store.create(TestGroups.threeStages("watched"));
                org.awaitility.Awaitility.await().until(() -> told.events.contains("stored watched"));
                store.resync(told);
                assertThat(told.events).containsExactly("stored watched");
            }
        }
    }

    /** Records what the store tells, in order. */
    private static final class Recorder implements GroupStore.Listener {

        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void stored(PipelineGroupSpec group) {
            events.add("stored " + group.name());
        }

        @Override
        public void removed(String name) {
            events.add("removed " + name);
        }

    }

}
