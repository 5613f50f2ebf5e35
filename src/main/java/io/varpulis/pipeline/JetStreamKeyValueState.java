package io.varpulis.pipeline;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.StorageType;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.JetStreamErrors;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * A pipeline's state in a JetStream key-value bucket: survives the worker's SIGKILL, and moves with the pipeline
 * when it is placed on another worker. One bucket per pipeline, created if absent.
 */
public class JetStreamKeyValueState implements KeyValueState {

    private final KeyValue bucket;
    private final String name;

    /**
     * Opens the bucket, creating it when absent.
     *
     * @param connection the connection
     * @param bucket     the bucket name ({@code [A-Za-z0-9_-]})
     * @param ttl        how long a key lives after its last write (window state older than this is useless)
     * @param replicas   bucket replicas, like the streams'
     * @throws KeyValueState.StateException when the bucket cannot be created or opened
     */
    public JetStreamKeyValueState(Connection connection, String bucket, Duration ttl, int replicas) {
        this.name = bucket;
        try {
            KeyValueManagement kvm = connection.keyValueManagement();
            try {
                kvm.getStatus(bucket);
            } catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != JetStreamErrors.STREAM_NOT_FOUND) {
                    throw e;
                }
                kvm.create(KeyValueConfiguration.builder().name(bucket).maxHistoryPerKey(1).ttl(ttl)
                        .storageType(StorageType.File).replicas(replicas)
                        .description("Varpulis pipeline state").build());
            }
            this.bucket = connection.keyValue(bucket);
        } catch (IOException | JetStreamApiException e) {
            throw new StateException("cannot open key-value bucket " + bucket + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param group    the pipeline group
     * @param pipeline the pipeline
     * @return the bucket name of that pipeline's state, {@code varpulis_state_{group}_{pipeline}_{hash}}: the
     * 8 hex digits of the FNV-1a hash of {@code group/pipeline} keep {@code a_b}/{@code c} and {@code a}/{@code b_c}
     * apart
     */
    public static String bucketName(String group, String pipeline) {
        return "varpulis_state_" + group + "_" + pipeline + "_"
                + DurableNames.fnv1a64Hex(group + "/" + pipeline).substring(0, 8);
    }

    @Override
    public Optional<byte[]> get(String key) {
        try {
            KeyValueEntry entry = bucket.get(key);
            return entry == null || entry.getValue() == null ? Optional.empty() : Optional.of(entry.getValue());
        } catch (IOException | JetStreamApiException e) {
            throw new StateException("cannot read " + key + " from " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void put(String key, byte[] value) {
        try {
            bucket.put(key, value);
        } catch (IOException | JetStreamApiException e) {
            throw new StateException("cannot write " + key + " to " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void delete(String key) {
        try {
            bucket.delete(key);
        } catch (IOException | JetStreamApiException e) {
            throw new StateException("cannot delete " + key + " from " + name + ": " + e.getMessage(), e);
        }
    }
}
