package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.jetstream.KeyValueBuckets;
import io.varpulis.pipeline.PipelineGroupSpec;
import org.springframework.scheduling.TaskScheduler;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The pipeline groups of a cluster, shared by all its coordinators: the store is the
 * truth, and every coordinator watches it, so a group declared on one is known to all at
 * once and a group deleted on one is gone everywhere (SPEC section 9). Groups are keyed
 * by cluster: a coordinator sees its own cluster's groups only, and learns which other
 * clusters keep groups in the same store.
 */
public interface GroupStore {

    /** What a watcher is told, on the store's thread. */
    interface Listener {

        /**
         * @param group a group of this cluster, stored (at the start of the watch, or
         * since)
         */
        void stored(PipelineGroupSpec group);

        /**
         * @param name a group of this cluster, deleted
         */
        void removed(String name);

    }

    /**
     * Starts watching: every group of this cluster is passed to {@link Listener#stored}
     * before this returns, later changes as they happen.
     * @param listener told about the groups
     * @return stops the watch
     * @throws IllegalStateException when the store cannot be read
     */
    AutoCloseable watch(Listener listener);

    /**
     * Stores a new group.
     * @param group the group
     * @throws IllegalStateException when the cluster has a group of that name already
     * (the message says so)
     * @throws GroupStoreUnavailableException when the store did not confirm the write
     */
    void create(PipelineGroupSpec group);

    /**
     * @param name a group to forget
     * @throws GroupStoreUnavailableException when the store did not confirm the delete
     */
    void delete(String name);

    /**
     * @return whether the store outlives the coordinators (the JetStream bucket): only
     * then is a group it does not hold one that was removed, rather than one a restarted
     * coordinator forgot (in memory, on core)
     */
    default boolean isDurable() {
        return true;
    }

    /**
     * Asks the store itself, not the watch, whether it holds an entry for a group of this
     * cluster, readable or not.
     * @param name a group name
     * @return whether the entry is there
     * @throws GroupStoreUnavailableException when the store did not answer
     */
    boolean holds(String name);

    /**
     * @return the groups of other clusters found in the store, by cluster name; groups
     * stored without a cluster (by versions before cluster names) under the empty name.
     * Never adopted.
     */
    Map<String, Set<String>> otherClusters();

    /**
     * @return groups in memory, lost with the coordinator and seen by it alone: what core
     * offers
     */
    static GroupStore inMemory() {
        return new GroupStore() {
            private final Map<String, PipelineGroupSpec> groups = new ConcurrentHashMap<>();

            private final List<Listener> listeners = new CopyOnWriteArrayList<>();

            @Override
            public AutoCloseable watch(Listener listener) {
                listeners.add(listener);
                groups.values().forEach(listener::stored);
                return () -> listeners.remove(listener);
            }

            @Override
            public boolean isDurable() {
                return false;
            }

            @Override
            public boolean holds(String name) {
                return groups.containsKey(name);
            }

            @Override
            public void create(PipelineGroupSpec group) {
                if (groups.putIfAbsent(group.name(), group) != null) {
                    throw exists(group.name());
                }
                listeners.forEach(l -> l.stored(group));
            }

            @Override
            public void delete(String name) {
                if (groups.remove(name) != null) {
                    listeners.forEach(l -> l.removed(name));
                }
            }

            @Override
            public Map<String, Set<String>> otherClusters() {
                return Map.of();
            }
        };
    }

    /**
     * Groups in the JetStream key-value bucket {@value ControlPlaneBuckets#GROUPS}
     * (created if absent), watched.
     * @param connection the connection
     * @param mapper writes and reads the group JSON
     * @param replicas bucket replicas, like the streams'
     * @param cluster this cluster's name, the key prefix
     * @param resyncs re-reads the store beside its watch, every few seconds (a thread of
     * its own)
     * @return the store
     * @throws IllegalStateException when the bucket cannot be created or opened
     */
    static GroupStore jetStream(Connection connection, ObjectMapper mapper, int replicas, String cluster,
            TaskScheduler resyncs) {
        String bucket = ControlPlaneBuckets.GROUPS;
        KeyValue kv;
        try {
            KeyValueBuckets.createIfAbsent(connection.keyValueManagement(),
                    KeyValueConfiguration.builder()
                        .name(bucket)
                        .maxHistoryPerKey(1)
                        .storageType(StorageType.File)
                        .replicas(replicas)
                        .description("Varpulis pipeline groups, {cluster}.{group}")
                        .build());
            kv = KeyValueBuckets.open(connection, bucket, null);
            return new JetStreamGroupStore(kv, connection, mapper, cluster, resyncs);
        }
        catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot open key-value bucket " + bucket + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param cluster a cluster name
     * @param group a group name
     * @return the group's key in {@value ControlPlaneBuckets#GROUPS}:
     * {@code {cluster}.{group}}
     */
    static String key(String cluster, String group) {
        return cluster + "." + group;
    }

    /**
     * @param name a group name
     * @return the error of a second group with that name
     */
    static IllegalStateException exists(String name) {
        return new IllegalStateException("pipeline group " + name + " already exists; delete it first");
    }

}
