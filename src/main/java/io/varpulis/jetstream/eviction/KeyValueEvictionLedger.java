package io.varpulis.jetstream.eviction;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.StorageType;
import io.varpulis.jetstream.KeyValueBuckets;

import java.io.IOException;
import java.util.Optional;

/**
 * The ledger the nodes of a cluster share: the key-value bucket {@value #BUCKET}, one key
 * per stream, each page written with the revision it was read at. Of the coordinators
 * watching a stream, the one whose write lands counts what happened since the last page,
 * the others count nothing that round, so no eviction is counted twice, and a node
 * restarted goes on from where the last one stopped, never from its own start.
 */
public final class KeyValueEvictionLedger implements EvictionLedger {

    /** The bucket. */
    public static final String BUCKET = "varpulis_evictions";

    /**
     * JetStream's "wrong last sequence": another node wrote the page since it was read (a
     * create finds it there).
     */
    private static final int WRONG_LAST_SEQUENCE = 10071;

    private static final ObjectMapper JSON = new ObjectMapper()
        .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final Connection connection;

    private final int replicas;

    private KeyValue bucket;

    /**
     * @param connection the connection
     * @param replicas the bucket's replicas when it is created
     * ({@code varpulis.nats.jetstream.replicas})
     */
    public KeyValueEvictionLedger(Connection connection, int replicas) {
        this.connection = connection;
        this.replicas = replicas;
    }

    @Override
    public synchronized Optional<Read> read(String stream) throws IOException, JetStreamApiException {
        KeyValueEntry entry = bucket().get(stream);
        if (entry == null || entry.getValue() == null) {
            return Optional.empty();
        }
        return Optional.of(new Read(JSON.readValue(entry.getValue(), Page.class), entry.getRevision()));
    }

    @Override
    public synchronized boolean write(String stream, Page page, long revision)
            throws IOException, JetStreamApiException {
        byte[] value = JSON.writeValueAsBytes(page);
        try {
            if (revision == 0) {
                bucket().create(stream, value);
            }
            else {
                bucket().update(stream, value, revision);
            }
            return true;
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                return false;
            }
            throw e;
        }
    }

    private KeyValue bucket() throws IOException, JetStreamApiException {
        if (bucket == null) {
            KeyValueBuckets.createIfAbsent(connection.keyValueManagement(),
                    KeyValueConfiguration.builder()
                        .name(BUCKET)
                        .description("Varpulis: the last observation of each watched stream, to count evictions "
                                + "once (issue 43)")
                        .maxHistoryPerKey(1)
                        .storageType(StorageType.File)
                        .replicas(replicas)
                        .build());
            bucket = KeyValueBuckets.open(connection, BUCKET, null);
        }
        return bucket;
    }

}
