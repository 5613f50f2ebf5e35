package io.varpulis.nats;

import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Consumer;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamSubscription;
import io.nats.client.support.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Logs what happens to the NATS connection in words an operator can act on, and remembers
 * the server's recent permission violations so that a timed-out JetStream request can be
 * reported as the missing permission it was.
 */
public class NatsConnectionEvents implements ConnectionListener, ErrorListener {

    private static final Logger log = LoggerFactory.getLogger(NatsConnectionEvents.class);

    private static final int REMEMBERED_VIOLATIONS = 32;

    private static final String VIOLATION_MARKER = "permissions violation";

    private final Duration reconnectWait;

    private final Deque<PermissionViolation> violations = new ConcurrentLinkedDeque<>();

    private volatile boolean connectedOnce;

    private volatile boolean disconnected;

    private volatile Exception lastException;

    /**
     * @param reconnectWait the wait between reconnection attempts, quoted in the
     * disconnect log line
     */
    public NatsConnectionEvents(Duration reconnectWait) {
        this.reconnectWait = reconnectWait;
    }

    /**
     * jnats 2.26 calls {@link #connectionEvent(Connection, Events, Long, String)}; this
     * older form only exists because the interface still declares it abstract.
     * @param conn the connection
     * @param type what happened
     */
    @Override
    @Deprecated
    public void connectionEvent(Connection conn, Events type) {
        connectionEvent(conn, type, System.currentTimeMillis(), null);
    }

    @Override
    public void connectionEvent(Connection conn, Events type, Long time, String uriDetails) {
        String server = serverName(conn, uriDetails);
        if (!connectedOnce && type != Events.CONNECTED) {
            // The first connection is still being attempted: the factory reports its
            // retries itself.
            log.debug("NATS connection event {} before the first connection", type);
            return;
        }
        switch (type) {
            case CONNECTED -> {
                connectedOnce = true;
                log.info("NATS connected to {} (server {} {})", server, conn.getServerInfo().getServerName(),
                        conn.getServerInfo().getVersion());
            }
            case DISCONNECTED -> {
                if (!disconnected) {
                    disconnected = true;
                    log.warn("NATS connection lost; reconnecting every {} ms; publishes wait in the reconnect "
                            + "buffer and readiness is DOWN until it is back", reconnectWait.toMillis());
                }
            }
            case RECONNECTED -> {
                disconnected = false;
                log.info("NATS reconnected to {}; subscriptions and consumers resume", server);
            }
            case RESUBSCRIBED -> log.debug("NATS subscriptions re-established on {}", server);
            case CLOSED -> log.info("NATS connection closed");
            case LAME_DUCK -> log.warn("NATS server {} entered lame duck mode (shutting down); the client will move "
                    + "to another server of the list", server);
            default -> log.debug("NATS connection event {} on {}", type, server);
        }
    }

    @Override
    public void errorOccurred(Connection conn, String error) {
        if (error != null && error.toLowerCase(java.util.Locale.ROOT).contains(VIOLATION_MARKER)) {
            violations.addFirst(new PermissionViolation(error, Instant.now()));
            while (violations.size() > REMEMBERED_VIOLATIONS) {
                violations.pollLast();
            }
            log.error("NATS server refused an operation: {}; grant that permission to this node's NATS user", error);
            return;
        }
        log.warn("NATS server reported an error: {}", error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
        lastException = exp;
        if (connectedOnce && !disconnected) {
            log.warn("NATS client error: {}", exp.toString());
        }
        else {
            log.debug("NATS client error while not connected: {}", exp.toString());
        }
    }

    @Override
    public void heartbeatAlarm(Connection conn, JetStreamSubscription sub, long lastStreamSequence,
            long lastConsumerSequence) {
        log.warn(
                "JetStream consumer {} missed its idle heartbeats (last stream sequence {}): the server may have lost "
                        + "it (deleted, or inactive past inactive_threshold); check the jetstream health details",
                consumerName(sub), lastStreamSequence);
    }

    @Override
    public void pullStatusWarning(Connection conn, JetStreamSubscription sub, Status status) {
        log.warn("JetStream consumer {}: {} {}", consumerName(sub), status.getCode(), status.getMessage());
    }

    @Override
    public void pullStatusError(Connection conn, JetStreamSubscription sub, Status status) {
        log.error("JetStream consumer {} stopped: {} {}; its events are not consumed until the node restarts or the "
                + "pipeline is deployed again", consumerName(sub), status.getCode(), status.getMessage());
    }

    /**
     * The server an event is about: the URI jnats reports with it, since the connection
     * may have moved on (or closed) by the time the callback runs; else the connected
     * URL; else the address the server announced.
     */
    private static String serverName(Connection conn, String uriDetails) {
        if (uriDetails != null && !uriDetails.isBlank()) {
            return uriDetails;
        }
        if (conn.getConnectedUrl() != null) {
            return conn.getConnectedUrl();
        }
        return conn.getServerInfo() == null ? "the server of " + conn.getOptions().getServers()
                : conn.getServerInfo().getHost() + ":" + conn.getServerInfo().getPort();
    }

    private static String consumerName(JetStreamSubscription sub) {
        try {
            return sub == null ? "(unknown)" : sub.getConsumerName();
        }
        catch (RuntimeException e) {
            return "(unknown)";
        }
    }

    /**
     * @return the client's most recent error (a TLS handshake failure, a refused
     * connection), or {@code null}
     */
    public Exception lastException() {
        return lastException;
    }

    @Override
    public void slowConsumerDetected(Connection conn, Consumer consumer) {
        log.warn("NATS slow consumer: a subscription's pending buffer is full and the client drops messages for it; "
                + "on core those events are lost, on jetstream they are redelivered after ack_wait");
    }

    /**
     * Finds a permission violation the server reported recently about a subject.
     * @param subjectPrefix the start of the subject the operation used (for example
     * {@code $JS.API.STREAM.CREATE.})
     * @param since ignore violations older than this
     * @return the server's error text, when there was one
     */
    public Optional<String> recentPermissionViolation(String subjectPrefix, Instant since) {
        return violations.stream()
            .filter(v -> !v.at().isBefore(since) && v.error().contains(subjectPrefix))
            .map(PermissionViolation::error)
            .findFirst();
    }

    private record PermissionViolation(String error, Instant at) {
    }

}
