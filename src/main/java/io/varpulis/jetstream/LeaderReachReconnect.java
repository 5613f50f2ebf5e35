package io.varpulis.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.varpulis.support.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Moves the connection away from a NATS server that cannot reach the leaders of the
 * streams this node uses (issue 25, SPEC section 9). A client stays on the server it
 * connected to for as long as that server answers pings, so a node on the minority side
 * of a partition would stall for the whole partition: its JetStream requests time out or
 * are answered "JetStream system temporarily unavailable". Every {@code check-interval}
 * the connected server is asked about each declared stream
 * ({@link JetStreamReach#probe}); once it has failed to reach a leader for
 * {@code reconnect-after}, jnats' {@link Connection#forceReconnect()} reconnects to
 * another server of the URL list (jnats tries the other servers before the one it left).
 * Each forced reconnect doubles the wait before the next, up to 8 times
 * {@code reconnect-after} ({@link ReconnectBackoff}), back to {@code reconnect-after}
 * once a check passes: a cluster down everywhere costs fewer and fewer reconnects, each
 * of which drops in-flight PubAcks and pulls. A stream without leader (or whose leader
 * does not answer) while the cluster's meta leader answers through the connected server
 * is a cluster-wide condition (an R1 stream whose server is gone, a long election) that
 * another server would show too: it never triggers a reconnect
 * ({@link JetStreamReach.Problem#seenFromTheMajority()}). Nothing happens with a single
 * server known, or with {@code reconnect-after=0}.
 */
public class LeaderReachReconnect implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaderReachReconnect.class);

    private final Connection connection;

    private final JetStreamAdmin admin;

    private final JetStreamManagement jsm;

    private final ScheduledExecutorService checker;

    private final AtomicInteger reconnects = new AtomicInteger();

    private final ReconnectBackoff backoff;

    private long unreachableSince;

    private String unreachableServer;

    /**
     * Starts checking at once, every {@code check-interval}.
     * @param connection the node's connection
     * @param admin knows the streams the node uses
     * @param settings {@code varpulis.nats.jetstream.leader-reach.*}
     * @throws InvalidConfigurationPropertyValueException naming {@code reconnect-after}
     * when it is shorter than {@code check-interval} (and not 0)
     */
    public LeaderReachReconnect(Connection connection, JetStreamAdmin admin, Settings settings) {
        Duration interval = settings.checkInterval();
        Duration reconnectAfter = settings.reconnectAfter();
        if (!reconnectAfter.isZero() && reconnectAfter.compareTo(interval) < 0) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.jetstream.leader-reach.reconnect-after",
                    reconnectAfter, "It must be 0 (never reconnect) or at least varpulis.nats.jetstream.leader-reach"
                            + ".check-interval (" + interval + "): a server is judged on at least one check.");
        }
        this.connection = connection;
        this.admin = admin;
        this.backoff = new ReconnectBackoff(reconnectAfter);
        try {
            this.jsm = connection.jetStreamManagement(JetStreamOptions.builder().requestTimeout(interval).build());
        }
        catch (IOException e) {
            throw new JetStreamUnavailableException(connection.getConnectedUrl(), e.getMessage(), e);
        }
        this.checker = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("varpulis-leader-reach"));
        if (!reconnectAfter.isZero()) {
            checker.scheduleWithFixedDelay(this::check, interval.toMillis(), interval.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * @return how many times this node reconnected away from a server that could not
     * reach a leader
     */
    public int reconnects() {
        return reconnects.get();
    }

    /** Stops checking. */
    @Override
    public void close() {
        checker.shutdownNow();
    }

    private void check() {
        try {
            if (connection.getStatus() != Connection.Status.CONNECTED) {
                unreachableServer = null;
                return;
            }
            Optional<JetStreamReach.Problem> problem = JetStreamReach
                .probe(jsm, admin.declaredStreams().keySet(), connection)
                .filter(JetStreamReach.Problem::leaderUnreachable);
            if (problem.isEmpty()) {
                // A leader election is a few seconds of this: not worth an operator's
                // attention.
                if (unreachableServer != null) {
                    log.debug("NATS server {} reaches the stream leaders again", unreachableServer);
                }
                unreachableServer = null;
                backoff.passed();
                return;
            }
            String server = problem.get().server();
            if (!server.equals(unreachableServer)) {
                unreachableServer = server;
                unreachableSince = System.nanoTime();
                return;
            }
            Duration unreachable = Duration.ofNanos(System.nanoTime() - unreachableSince);
            if (unreachable.compareTo(backoff.current()) >= 0 && connection.getServers().size() > 1) {
                backoff.reconnected();
                log.warn(
                        "NATS server {} has not reached a stream leader for {} ms ({}); reconnecting to another "
                                + "server of varpulis.nats.url (the next reconnect waits {} ms)",
                        server, unreachable.toMillis(), problem.get().reason(), backoff.current().toMillis());
                unreachableServer = null;
                reconnects.incrementAndGet();
                connection.forceReconnect();
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        catch (Exception e) {
            log.debug("leader reach check failed: {}", e.toString());
        }
    }

    /**
     * When to leave a server ({@code varpulis.nats.jetstream.leader-reach.*}).
     *
     * @param reconnectAfter how long the connected server may fail to reach a stream
     * leader before a reconnect; 0 never reconnects
     * @param checkInterval how often the server is asked, and the longest wait for each
     * answer
     */
    public record Settings(Duration reconnectAfter, Duration checkInterval) {

        /**
         * The defaults of {@code varpulis.nats.jetstream.leader-reach.*}: a reconnect
         * after 15 s (longer than a stream leader election), checks every 2 s; for what
         * runs outside a Spring context (the demo's driver). The properties class spells
         * the same values out for the configuration metadata, and a test holds them
         * equal.
         */
        public static final Settings DEFAULTS = new Settings(Duration.ofSeconds(15), Duration.ofSeconds(2));

    }

}
