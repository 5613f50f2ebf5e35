package io.varpulis.jetstream.eviction;

import io.nats.client.JetStreamApiException;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where an {@link EvictionDetector} keeps its last look at each watched stream, one page
 * per stream, written with the revision it was read at: a write that finds another
 * revision counts nothing. On a cluster the coordinators share
 * {@link KeyValueEvictionLedger}, so that one of them counts each eviction; a service
 * keeps its pages {@linkplain #inMemory() in memory} (a service gets only what it
 * declares on the server, SPEC section 13), so each of its instances counts what it sees,
 * unless it asks for the shared one
 * ({@code varpulis.nats.jetstream.evictions.shared-ledger}).
 */
public interface EvictionLedger {

    /**
     * @param stream a stream
     * @return its page and the revision to write the next one at, or empty when there is
     * none yet
     * @throws IOException when JetStream does not answer, or the ledger cannot be made
     * @throws JetStreamApiException when it refuses
     */
    Optional<Read> read(String stream) throws IOException, JetStreamApiException;

    /**
     * @param stream a stream
     * @param page its new page
     * @param revision the revision it was read at, 0 when there was none
     * @return whether it was written: false when another node wrote first
     * @throws IOException when JetStream does not answer
     * @throws JetStreamApiException when it refuses for another reason than the revision
     */
    boolean write(String stream, Page page, long revision) throws IOException, JetStreamApiException;

    /**
     * @return pages kept by this process alone
     */
    static EvictionLedger inMemory() {
        Map<String, Read> pages = new ConcurrentHashMap<>();
        return new EvictionLedger() {
            @Override
            public Optional<Read> read(String stream) {
                return Optional.ofNullable(pages.get(stream));
            }

            @Override
            public synchronized boolean write(String stream, Page page, long revision) {
                long current = pages.containsKey(stream) ? pages.get(stream).revision() : 0;
                if (current != revision) {
                    return false;
                }
                pages.put(stream, new Read(page, revision + 1));
                return true;
            }
        };
    }

    /**
     * One stream's page.
     *
     * @param consumers the last observation of each watched consumer, by durable
     * @param seenAt when each was last observed, epoch ms: a consumer nobody watches any
     * more is dropped a day later
     * @param stream the last observation of the stream itself, when nothing consumes it
     */
    record Page(Map<String, Observation> consumers, Map<String, Long> seenAt, StreamObservation stream) {

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
