package io.varpulis.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.StorageType;
import io.varpulis.pipeline.PipelineGroupSpec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the coordinator keeps the pipeline groups it was given, so a restarted coordinator knows them again instead
 * of undeploying what the workers still run.
 */
public interface GroupStore {

    /** The key-value bucket of the JetStream store. */
    String BUCKET = "varpulis_groups";

    /**
     * @return every stored group
     * @throws IllegalStateException when the store cannot be read
     */
    List<PipelineGroupSpec> load();

    /**
     * @param group a group to keep
     * @throws IllegalStateException when the store did not confirm the write
     */
    void save(PipelineGroupSpec group);

    /**
     * @param name a group to forget
     * @throws IllegalStateException when the store did not confirm the delete
     */
    void delete(String name);

    /**
     * @return groups in memory, lost with the coordinator: what core offers
     */
    static GroupStore inMemory() {
        Map<String, PipelineGroupSpec> groups = new ConcurrentHashMap<>();
        return new GroupStore() {
            @Override
            public List<PipelineGroupSpec> load() {
                return new ArrayList<>(groups.values());
            }

            @Override
            public void save(PipelineGroupSpec group) {
                groups.put(group.name(), group);
            }

            @Override
            public void delete(String name) {
                groups.remove(name);
            }
        };
    }

    /**
     * Groups in the JetStream key-value bucket {@code varpulis_groups} (created if absent), one key per group, its
     * JSON as value. Shared by every coordinator of the cluster.
     *
     * @param connection the connection
     * @param mapper     writes and reads the group JSON
     * @param replicas   bucket replicas, like the streams'
     * @return the store
     * @throws IllegalStateException when the bucket cannot be created or opened
     */
    static GroupStore jetStream(Connection connection, ObjectMapper mapper, int replicas) {
        String bucket = BUCKET;
        KeyValue kv;
        try {
            if (!connection.keyValueManagement().getBucketNames().contains(bucket)) {
                connection.keyValueManagement().create(KeyValueConfiguration.builder().name(bucket)
                        .maxHistoryPerKey(1).storageType(StorageType.File).replicas(replicas)
                        .description("Varpulis pipeline groups declared on the coordinator").build());
            }
            kv = connection.keyValue(bucket);
        } catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot open key-value bucket " + bucket + ": " + e.getMessage(), e);
        }
        return new GroupStore() {
            @Override
            public List<PipelineGroupSpec> load() {
                try {
                    List<PipelineGroupSpec> groups = new ArrayList<>();
                    for (String key : kv.keys()) {
                        KeyValueEntry entry = kv.get(key);
                        if (entry != null && entry.getValue() != null) {
                            groups.add(mapper.readValue(entry.getValue(), PipelineGroupSpec.class));
                        }
                    }
                    return groups;
                } catch (IOException | JetStreamApiException | InterruptedException e) {
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    throw new IllegalStateException("cannot read the pipeline groups from " + bucket + ": "
                            + e.getMessage(), e);
                }
            }

            @Override
            public void save(PipelineGroupSpec group) {
                try {
                    kv.put(group.name(), mapper.writeValueAsBytes(group));
                } catch (IOException | JetStreamApiException e) {
                    throw new IllegalStateException("cannot store pipeline group " + group.name() + ": "
                            + e.getMessage(), e);
                }
            }

            @Override
            public void delete(String name) {
                try {
                    kv.delete(name);
                } catch (IOException | JetStreamApiException e) {
                    throw new IllegalStateException("cannot delete pipeline group " + name + ": " + e.getMessage(),
                            e);
                }
            }
        };
    }
}
