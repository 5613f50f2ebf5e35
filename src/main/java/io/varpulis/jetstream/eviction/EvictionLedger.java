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
import java.util.Map;
import java.util.Optional;

/**
 * The last observation of every watched stream and consumer, kept in the key-value bucket
 * {@value #BUCKET} (one key per stream) and written with the revision it was read at: of
 * the nodes watching a stream (two coordinators, the instances of a service), the one
 * whose write lands counts what happened since the last observation, the others count
 * nothing that round, so no eviction is counted twice, and a coordinator that starts
 * leading (or a node restarted) goes on from where the last one stopped, never from its
 * own start.
 */
public final class EvictionLedger {

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
    public EvictionLedger(Connection connection, int replicas) {
        this.connection = connection;
        this.replicas = replicas;
    }

    /**
     * @param stream a stream
     * @return its page and the revision to write the next one at, or empty when there is
     * none yet
     * @throws IOException when JetStream does not answer, or the bucket cannot be created
     * @throws JetStreamApiException when it refuses
     */
    synchronized Optional<Read> read(String stream) throws IOException, JetStreamApiException {
        KeyValueEntry entry = bucket().get(stream);
        if (entry == null || entry.getValue() == null) {
            return Optional.empty();
        }
        return Optional.of(new Read(JSON.readValue(entry.getValue(), Page.class), entry.getRevision()));
    }

    /**
     * @param stream a stream
     * @param page its new page
     * @param revision the revision it was read at, 0 when there was none
     * @return whether it was written: false when another node wrote first
     * @throws IOException when JetStream does not answer
     * @throws JetStreamApiException when it refuses for another reason than the revision
     */
    synchronized boolean write(String stream, Page page, long revision) throws IOException, JetStreamApiException {
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

    /**
     * One stream's page.
     *
     * @param consumers the last observation of each watched consumer, by durable
     * @param seenAt when each was last observed, epoch ms: a consumer nobody watches any
     * more is dropped a day later
     * @param stream the last observation of the stream itself, when nothing consumes it
     */
    public record Page(Map<String, Observation> consumers, Map<String, Long> seenAt, StreamObservation stream) {

        /**
         * @param consumers by durable
         * @param seenAt by durable
         * @param stream the stream's own observation, or null
         */
        public Page {
            consumers = Map.copyOf(consumers);
            seenAt = Map.copyOf(seenAt);
        }

    }

    /**
     * A page read.
     *
     * @param page the page
     * @param revision its revision
     */
    record Read(Page page, long revision) {
    }

}
