package io.varpulis.cluster.coordinator;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.api.ClusterInfo;
import io.nats.client.api.StreamInfo;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Whether this coordinator hears the workers (issue 11: an outage of NATS is not a worker
 * death): its connection is connected and, on JetStream, the heartbeat stream has a
 * leader and the durable {@code hb_{coordinator id}} answers. Heartbeats it could not
 * receive meanwhile are not counted against the workers: when it hears them again, each
 * worker's silence starts anew ({@link #livenessFrom()}). Every answer of the heartbeat
 * stream also tells the server's time ({@link ServerClock}), which a heartbeat's age is
 * measured on.
 */
public class ReachabilityProbe {

    private static final Logger log = LoggerFactory.getLogger(ReachabilityProbe.class);

    /**
     * One round-trip per health check, answered in milliseconds when the consumer is
     * there; bounded when not.
     */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

    private final String coordinatorId;

    private final Duration heartbeatTimeout;

    private final Connection connection;

    private final JetStreamManagement probe;

    private final ServerClock serverClock;

    private final LongSupplier nanoTime;

    private volatile boolean reachable = true;

    private volatile long livenessFrom;

    /**
     * @param coordinatorId the coordinator (its durable heartbeat consumer's name)
     * @param heartbeatTimeout heartbeat-timeout, for what the logs say
     * @param connection the coordinator's connection
     * @param probe JetStream management with a short request timeout
     * ({@link #management}), or {@code null} on core (the connection's state alone)
     * @param serverClock learns the server's time from the heartbeat stream's info
     * @param nanoTime the coordinator's monotonic clock, in nanoseconds (the clock of
     * liveness)
     */
    public ReachabilityProbe(String coordinatorId, Duration heartbeatTimeout, Connection connection,
            JetStreamManagement probe, ServerClock serverClock, LongSupplier nanoTime) {
        this.coordinatorId = coordinatorId;
        this.heartbeatTimeout = heartbeatTimeout;
        this.connection = connection;
        this.probe = probe;
        this.serverClock = serverClock;
        this.nanoTime = nanoTime;
    }

    /**
     * @param connection the coordinator's connection
     * @return JetStream management whose requests time out after a second, for the probe
     * and {@link ServerProgress}
     * @throws IllegalStateException when it cannot be opened
     */
    public static JetStreamManagement management(Connection connection) {
        try {
            return connection.jetStreamManagement(JetStreamOptions.builder().requestTimeout(PROBE_TIMEOUT).build());
        }
        catch (IOException e) {
            throw new IllegalStateException("cannot open JetStream management: " + e.getMessage(), e);
        }
    }

    /**
     * Starts counting the workers' silence from now, and reads the server's time before
     * the first heartbeat, so that a replayed one is measured against it.
     */
    public void start() {
        livenessFrom = nanoTime.getAsLong();
        heartbeatConsumerAnswers();
    }

    /**
     * Asks once (at most a second on JetStream); says at WARN when the heartbeats became
     * unreachable, at INFO when they are reachable again.
     */
    public void check() {
        boolean ok = connection.getStatus() == Connection.Status.CONNECTED && heartbeatConsumerAnswers();
        if (!ok && reachable) {
            reachable = false;
            log.warn(
                    "coordinator {} cannot reach NATS or its heartbeat consumer {}: heartbeats missed meanwhile are "
                            + "not counted against the workers",
                    coordinatorId, DurableNames.heartbeatConsumer(coordinatorId));
        }
        else if (ok && !reachable) {
            reachable = true;
            livenessFrom = nanoTime.getAsLong();
            log.info("coordinator {} reaches NATS and its heartbeat consumer again: every worker gets a full "
                    + "heartbeat-timeout ({} ms) from now", coordinatorId, heartbeatTimeout.toMillis());
        }
    }

    /**
     * @return whether this coordinator reaches NATS and its heartbeat consumer (as of the
     * last check)
     */
    public boolean isReachable() {
        return reachable;
    }

    /**
     * @return when this coordinator last regained its heartbeats (or started), on the
     * monotonic clock: no worker's silence starts before it
     */
    public long livenessFrom() {
        return livenessFrom;
    }

    private boolean heartbeatConsumerAnswers() {
        if (probe == null) {
            return true;
        }
        try {
            // The stream must have a leader too: while it elects one, the workers'
            // heartbeats are not stored.
            StreamInfo info = probe.getStreamInfo(VarpulisJetStream.HEARTBEAT_STREAM);
            serverClock.observe(info);
            ClusterInfo stream = info.getClusterInfo();
            boolean led = stream == null || stream.getLeader() != null;
            probe.getConsumerInfo(VarpulisJetStream.HEARTBEAT_STREAM, DurableNames.heartbeatConsumer(coordinatorId));
            return led;
        }
        catch (Exception e) {
            log.debug("heartbeat consumer info not answered: {}", e.toString());
            return false;
        }
    }

}
