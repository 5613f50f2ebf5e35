package io.varpulis.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;

/**
 * Creates a stream for {@link JetStreamAdmin}, with SPEC section 3's small-store
 * fallback: where the servers cannot reserve its max_bytes (more than their JetStream
 * storage; on a cluster, "no suitable peers for placement, insufficient storage" when one
 * server's store is small) it is created bounded by max_age only, marked in its
 * description, and a WARN says so; a cluster with fewer servers able to hold it than its
 * replicas is a startup error naming both.
 */
final class StreamCreator {

    private static final Logger log = LoggerFactory.getLogger(StreamCreator.class);

    private final Connection connection;

    private final JetStreamManagement jsm;

    StreamCreator(Connection connection, JetStreamManagement jsm) {
        this.connection = connection;
        this.jsm = jsm;
    }

    StreamInfo create(StreamConfiguration config) throws IOException, JetStreamApiException {
        try {
            StreamInfo info = jsm.addStream(config);
            log.info("created stream {} (subjects={}, max_age={}, max_bytes={}, max_msgs={}, replicas={})",
                    config.getName(), config.getSubjects(), StreamDrift.duration(config.getMaxAge()),
                    config.getMaxBytes(), config.getMaxMsgs(), config.getReplicas());
            return info;
        }
        catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == JetStreamErrors.REPLICAS_NOT_SUPPORTED) {
                throw new IllegalStateException("stream " + config.getName() + " asks for " + config.getReplicas()
                        + " replicas but the NATS server is not clustered: set varpulis.nats.jetstream.replicas=1 "
                        + "(env VARPULIS_NATS_JETSTREAM_REPLICAS) or run a JetStream cluster", e);
            }
            if (!JetStreamErrors.isPlacementRefused(e)) {
                throw e;
            }
            // On a cluster the refusal of a max_bytes that one small store cannot reserve
            // is 10005 "no suitable
            // peers for placement, insufficient storage"; 10005 without that reason (too
            // few servers, a peer
            // offline) is not about max_bytes, and dropping it for a transient refusal
            // would be for good. With
            // more replicas than servers the reason may still name one small store: not
            // about max_bytes either.
            if (config.getMaxBytes() <= 0 || !JetStreamErrors.isStorageRefused(e) || fewerServersThanReplicas(config)) {
                throw unplaceable(config, e);
            }
            log.warn(
                    "the server cannot reserve max_bytes={} for stream {} ({} replica(s)): {}; creating it bounded "
                            + "by max_age={} only. Give every nats-server more JetStream storage (max_file_store) or "
                            + "lower the stream's max_bytes (varpulis.nats.jetstream.routing.max-bytes, or "
                            + "varpulis.nats.jetstream.streams.<name>.max-bytes) to restore the byte ceiling",
                    config.getMaxBytes(), config.getName(), config.getReplicas(), e.getErrorDescription(),
                    StreamDrift.duration(config.getMaxAge()));
            // Marked, so that a later node reading it names the fallback, not an
            // operator, as the reason for the drift.
            StreamConfiguration unbounded = StreamConfiguration.builder(config)
                .maxBytes(-1)
                .description(JetStreamAdmin.SMALL_STORE_FALLBACK + config.getMaxBytes())
                .build();
            return create(unbounded);
        }
    }

    /**
     * @return whether the servers the connected one knows (its INFO's connect_urls, when
     * given) are too few
     */
    private boolean fewerServersThanReplicas(StreamConfiguration config) {
        List<String> servers = connection.getServerInfo().getConnectURLs();
        return servers != null && !servers.isEmpty() && servers.size() < config.getReplicas();
    }

    /**
     * A refusal that is not about room for max_bytes: too few servers (or peers online)
     * for its replicas.
     */
    private IllegalStateException unplaceable(StreamConfiguration config, JetStreamApiException e) {
        var server = connection.getServerInfo();
        return new IllegalStateException("stream " + config.getName() + " asks for " + config.getReplicas()
                + " replica(s) and the JetStream "
                + (server.getCluster() == null ? "server" : "cluster " + server.getCluster()) + " cannot place it ("
                + e.getMessage() + "; asked through server " + server.getServerName() + ", which knows the servers "
                + server.getConnectURLs() + "): run at least " + config.getReplicas() + " JetStream servers with "
                + "free store (max_file_store) in the cluster, or set varpulis.nats.jetstream.replicas (env "
                + "VARPULIS_NATS_JETSTREAM_REPLICAS) to the number of servers", e);
    }

}
