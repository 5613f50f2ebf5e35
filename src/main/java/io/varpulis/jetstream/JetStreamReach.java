package io.varpulis.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ClusterInfo;
import io.nats.client.api.Replica;
import io.nats.client.api.StreamInfo;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;

/**
 * Whether the NATS server this node is connected to serves JetStream for the streams the
 * node uses (issue 25, SPEC section 9): JetStream enabled on it, and every stream with a
 * leader it can reach. A server cut off from the cluster's majority (a partition, its
 * peers paused) answers "JetStream system temporarily unavailable" or nothing; a stream
 * without quorum has no leader; a server whose disk filled ("out of resources, will be
 * DISABLED") shows as an offline replica and, to new connections, as
 * {@code jetstream=false}. The {@code jetstream} health component reports these, and
 * {@link LeaderReachReconnect} moves the connection away from a server that cannot reach
 * a leader.
 */
public final class JetStreamReach {

    /**
     * {@code JSNotEnabledForAccountErr}: JetStream is not enabled for the account (on
     * that server).
     */
    static final int NOT_ENABLED_FOR_ACCOUNT = 10039;

    /** {@code JSNotEnabledErr}: JetStream is not enabled on the server. */
    static final int NOT_ENABLED = 10076;

    /**
     * How long a stream's leader may go without hearing from a replica before that
     * replica no longer counts toward its quorum: nats-server's own lost-quorum interval
     * (10 s, after which it reports the replica not current).
     */
    public static final Duration LOST_QUORUM = Duration.ofSeconds(10);

    /**
     * How long a stream's leader may go without hearing from the connected server's
     * replica, behind, before that server counts as unable to serve the stream: raft
     * heartbeats come every second, so 5 s is five missed in a row, beyond what a busy
     * follower shows.
     */
    public static final Duration REPLICA_SILENT = Duration.ofSeconds(5);

    private static final String DISABLED_ADVICE = "check the server's log: if it says 'out of resources, will be "
            + "DISABLED', free its store (the disk, max_file_store) and restart it; this node moves to another "
            + "server of varpulis.nats.url after varpulis.nats.jetstream.leader-reach.reconnect-after";

    private JetStreamReach() {
    }

    /**
     * What keeps the connected server from serving a stream.
     *
     * @param server the connected server's name ({@code server_name}), or its URL when it
     * has none
     * @param stream the stream concerned, or {@code null} for the server as a whole
     * @param reason what was seen, one line
     * @param action what an operator does about it
     * @param leaderUnreachable whether the server cannot reach a leader (no answer, no
     * meta leader, no stream leader, JetStream off on it): another server of the URL list
     * may serve the node
     */
    public record Problem(String server, String stream, String reason, String action, boolean leaderUnreachable) {

        /**
         * @return {@code "<reason> (server <name>): <action>"}, the health detail and log
         * text
         */
        public String describe() {
            return reason + " (server " + server + "): " + action;
        }

        /**
         * @return this stream's problem (no leader, its leader silent) as seen from the
         * cluster's majority (the meta leader answers through the connected server): a
         * cluster-wide condition that another server would show as well, so
         * {@link #leaderUnreachable()} is {@code false} and the node stays where it is
         */
        public Problem seenFromTheMajority() {
            return new Problem(server, stream,
                    reason + "; the cluster's meta leader answers through this server, "
                            + "so another server would show the same",
                    "start the stopped nats-servers holding its replicas "
                            + "(an R1 stream's server is gone) or wait for the election to end (a slow disk lengthens it); "
                            + "events wait until a leader is elected",
                    false);
        }
    }

    /**
     * @param connection the connection
     * @return the connected server's name, or its URL when it has none; {@code "none"}
     * while not connected
     */
    public static String serverName(Connection connection) {
        var info = connection.getServerInfo();
        if (info != null && info.getServerName() != null && !info.getServerName().isBlank()) {
            return info.getServerName();
        }
        return connection.getConnectedUrl() == null ? "none" : connection.getConnectedUrl();
    }

    /**
     * @param connection a connected connection
     * @return a problem when the server's INFO (sent on connect) says
     * {@code jetstream=false}
     */
    public static Optional<Problem> ofServer(Connection connection) {
        var info = connection.getServerInfo();
        if (info == null || info.isJetStreamAvailable()) {
            return Optional.empty();
        }
        return Optional.of(new Problem(serverName(connection), null, "JetStream is disabled on the connected server",
                "if its log says 'out of resources, will be DISABLED', free its store (max_file_store, the disk) and "
                        + "restart it: nats-server does not re-enable JetStream by itself",
                true));
    }

    /**
     * @param info a stream's info as the connected server answered it
     * @param server the connected server's name
     * @return a problem when the stream has no leader (no quorum), a leader that has not
     * heard from a majority of its replicas for {@link #LOST_QUORUM} ({@link #ofQuorum}),
     * or lists the connected server as an offline replica (its JetStream disabled or its
     * store failing)
     */
    public static Optional<Problem> ofStream(StreamInfo info, String server) {
        ClusterInfo cluster = info.getClusterInfo();
        String stream = info.getConfiguration().getName();
        if (cluster == null) {
            return Optional.empty();
        }
        if (cluster.getLeader() == null || cluster.getLeader().isBlank()) {
            return Optional.of(new Problem(server, stream,
                    "stream " + stream + " has no leader (fewer than a " + "majority of its replicas reachable)",
                    "start or reconnect the stopped nats-servers of the "
                            + "cluster; events wait until a leader is elected",
                    true));
        }
        Optional<Problem> quorum = ofQuorum(info, server, LOST_QUORUM);
        if (quorum.isPresent()) {
            return quorum;
        }
        return ofConnectedReplica(info, server);
    }

    /**
     * The connected server's own replica of a stream, as the stream's leader reports it:
     * offline, or not heard from for more than {@link #REPLICA_SILENT} and behind. That
     * is what a server whose JetStream was disabled under it looks like to its clients
     * (issue 30: "out of resources, will be DISABLED" after a full disk; its INFO still
     * says JetStream is on, and the account and stream requests are answered by the other
     * servers), and a server whose store fails: the node's events would wait on it, so it
     * moves to another server.
     * @param info a stream's info, as its leader answered it
     * @param server the connected server's name
     * @return the problem, or empty when the connected server leads the stream, is no
     * peer of it, keeps up, or the stream has no leader (nobody heard it then: a majority
     * lost, told by the other checks)
     */
    public static Optional<Problem> ofConnectedReplica(StreamInfo info, String server) {
        ClusterInfo cluster = info.getClusterInfo();
        if (cluster == null || cluster.getReplicas() == null || cluster.getLeader() == null
                || cluster.getLeader().isBlank()) {
            return Optional.empty();
        }
        String stream = info.getConfiguration().getName();
        for (Replica replica : cluster.getReplicas()) {
            if (!server.equals(replica.getName())) {
                continue;
            }
            if (replica.isOffline()) {
                return Optional.of(new Problem(server, stream,
                        "the connected server's replica of stream " + stream + " is offline", DISABLED_ADVICE, true));
            }
            Duration silent = replica.getActive();
            if (!replica.isCurrent() && silent != null && silent.compareTo(REPLICA_SILENT) > 0) {
                return Optional.of(new Problem(server, stream,
                        "the connected server's replica of stream " + stream + " has not been heard from by its leader "
                                + cluster.getLeader() + " for " + silent.toSeconds() + " s and is " + replica.getLag()
                                + " operation(s) behind: its " + "JetStream may be disabled, or its store failing",
                        DISABLED_ADVICE, true));
            }
        }
        return Optional.empty();
    }

    /**
     * A leader without quorum: the minority side of a partition, where the server cut off
     * goes on naming itself the stream's leader and answers its clients with the view it
     * had when it was cut off (issue 25: the fault suite's partition scenario read 20 100
     * of 60 000 stored lines that way). The answer came from the stream's leader, so its
     * replicas' {@code active} (time since the leader last heard from them) tells whether
     * it still has a majority. {@code current} is not used: under load a healthy follower
     * is briefly behind the leader's last applied entry and reported not current.
     * @param info a stream's info as the connected server answered it
     * @param server the connected server's name
     * @param recently how long since the leader last heard from a replica it still
     * counts, at least {@link #LOST_QUORUM} for a health check (a replica seen later than
     * that is one nats-server itself reports not current), shorter for a reader that
     * waits for a fresh view anyway
     * @return a problem when the leader heard from fewer than a majority of the stream's
     * peers (itself included) within {@code recently}: a node reconnects away from it
     * ({@link Problem#leaderUnreachable()})
     */
    public static Optional<Problem> ofQuorum(StreamInfo info, String server, Duration recently) {
        ClusterInfo cluster = info.getClusterInfo();
        if (cluster == null || cluster.getLeader() == null || cluster.getLeader().isBlank()
                || cluster.getReplicas() == null || cluster.getReplicas().isEmpty()) {
            return Optional.empty();
        }
        int peers = cluster.getReplicas().size() + 1;
        long heard = 1 + cluster.getReplicas()
            .stream()
            .filter(r -> !r.isOffline() && (r.getActive() == null || r.getActive().compareTo(recently) < 0))
            .count();
        if (heard * 2 > peers) {
            return Optional.empty();
        }
        String stream = info.getConfiguration().getName();
        return Optional.of(new Problem(server, stream,
                "stream " + stream + "'s leader " + cluster.getLeader() + " has heard from only " + (heard - 1)
                        + " of its " + (peers - 1) + " replicas in the last " + recently.toSeconds()
                        + " s (it is cut off from the cluster's majority, whose view it does not " + "have)",
                restartAdvice(), true));
    }

    /**
     * @param stream the stream asked about
     * @param server the connected server's name
     * @param e what the request threw
     * @return the problem it shows: no answer, no meta leader, JetStream off, or another
     * refusal
     */
    public static Problem ofFailure(String stream, String server, Exception e) {
        String about = "stream " + stream;
        if (e instanceof JetStreamApiException api) {
            int code = api.getApiErrorCode();
            if (code == JetStreamErrors.TEMPORARILY_UNAVAILABLE) {
                return new Problem(server, stream, "JetStream is temporarily unavailable about " + about + " (no "
                        + "meta leader reachable: a partition, or most servers down)", restartAdvice(), true);
            }
            if (isNotEnabled(e)) {
                return new Problem(server, stream,
                        "JetStream is not enabled on the connected server (" + api.getMessage() + ")",
                        "free its store and restart it, or check its account's " + "JetStream limits", true);
            }
            return new Problem(server, stream, "the server refused a request about " + about + ": " + api.getMessage(),
                    "see the server's log", false);
        }
        if (e instanceof IOException) {
            return new Problem(server, stream, "JetStream did not answer about " + about + " (" + e.getMessage() + ")",
                    restartAdvice(), true);
        }
        return new Problem(server, stream, "asking about " + about + " failed: " + e, "see this node's log", false);
    }

    /**
     * @param e what a JetStream request threw
     * @return {@code true} when JetStream is not enabled on the server (or for the
     * account there): a condition that lasts until an operator acts, not a leader
     * election
     */
    public static boolean isNotEnabled(Exception e) {
        return e instanceof JetStreamApiException api
                && (api.getApiErrorCode() == NOT_ENABLED || api.getApiErrorCode() == NOT_ENABLED_FOR_ACCOUNT);
    }

    /**
     * Asks the connected server about each stream and returns the first problem.
     * @param jsm the management API, with the request timeout to wait at most per stream
     * @param streams the stream names this node uses
     * @param connection the connection (server INFO, server name)
     * @return the first problem, or empty when every stream has a leader the server
     * reaches; a stream without leader, or whose leader does not answer, while the meta
     * leader answers through the server is a problem reconnecting cannot solve
     * ({@link Problem#seenFromTheMajority()})
     */
    public static Optional<Problem> probe(JetStreamManagement jsm, Collection<String> streams, Connection connection) {
        String server = serverName(connection);
        Optional<Problem> serverProblem = ofServer(connection);
        if (serverProblem.isPresent()) {
            return serverProblem;
        }
        for (String stream : streams) {
            Optional<Problem> problem;
            try {
                StreamInfo info = jsm.getStreamInfo(stream);
                Optional<Problem> replica = ofConnectedReplica(info, server);
                if (replica.isPresent()) {
                    // The connected server's own: another server would not show it,
                    // whatever the meta leader says.
                    return replica;
                }
                problem = ofStream(info, server);
            }
            catch (JetStreamApiException e) {
                problem = JetStreamErrors.isNotFound(e) ? Optional.empty() : Optional.of(ofFailure(stream, server, e));
            }
            catch (IOException | RuntimeException e) {
                problem = Optional.of(ofFailure(stream, server, e));
            }
            if (problem.isPresent()) {
                return problem.get().leaderUnreachable() && metaLeaderAnswers(jsm)
                        ? Optional.of(problem.get().seenFromTheMajority()) : problem;
            }
        }
        return Optional.empty();
    }

    /**
     * Whether the connected server is on the cluster's majority side: on a cluster only
     * the meta leader answers the account info request ({@code $JS.API.INFO}); a server
     * without meta leader answers "temporarily unavailable" (10008) or nothing.
     * @param jsm the management API, with the request timeout to wait at most
     * @return {@code true} when the account info request was answered
     */
    public static boolean metaLeaderAnswers(JetStreamManagement jsm) {
        try {
            jsm.getAccountStatistics();
            return true;
        }
        catch (IOException | JetStreamApiException | RuntimeException e) {
            return false;
        }
    }

    private static String restartAdvice() {
        return "check that the nats-servers of the cluster run and reach one another (routes); this node moves "
                + "to another server of varpulis.nats.url after varpulis.nats.jetstream.leader-reach.reconnect-after";
    }

}
