package io.varpulis.demo;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.api.StreamInfo;
import io.varpulis.jetstream.JetStreamErrors;
import io.varpulis.jetstream.JetStreamReach;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Keeps the demo's closing reads (the drain's consumer info, the report's stream counts,
 * consumers and state) on a NATS server of the cluster's majority (issue 25, the fault
 * suite's {@code partition} scenario). A server cut off from the others keeps answering
 * its clients' pings, and answers a stream's info as the stream's leader with the view it
 * had when it was cut off: read there, a report counted 20 100 of 60 000 stored lines. A
 * view is taken from the majority when the connected server reaches the cluster's meta
 * leader ({@code $JS.API.INFO} answered) and every stream's leader has heard from a
 * majority of its replicas within {@link #RECENTLY} ({@link JetStreamReach#ofQuorum}); a
 * server that shows neither for {@link #RECONNECT_AFTER_CHECKS} checks in a row is left
 * for another server of the URL list (jnats' {@code forceReconnect}, which tries the
 * others first).
 */
final class MajorityReads {

    /**
     * How recently a stream's leader must have heard from a replica to count it. Shorter
     * than nats-server's own 10 s (a replica is then reported not current): the report
     * runs on an idle cluster, where a leader hears from its replicas every second (raft
     * heartbeats); a leader silent for 5 s is cut off, or its replicas are.
     */
    static final Duration RECENTLY = Duration.ofSeconds(5);

    /**
     * Checks a minority server must fail in a row, one second apart, before the
     * connection leaves it.
     */
    static final int RECONNECT_AFTER_CHECKS = 3;

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

    private static final long CHECK_MILLIS = 1000;

    private final Connection connection;

    private final JetStreamManagement jsm;

    private final Collection<String> streams;

    private final PrintStream out;

    private int reconnects;

    /**
     * What the connected server shows.
     *
     * @param majority whether its answers are the cluster majority's
     * @param minority whether it is cut off from the majority, so another server of the
     * URL list may serve better
     * @param reason why not, one line; empty when {@code majority}
     */
    record View(boolean majority, boolean minority, String reason) {

        static final View MAJORITY = new View(true, false, "");

    }

    /**
     * @param connection the demo's connection
     * @param streams the streams the report reads
     * @param out where the demo prints
     * @throws IOException when JetStream cannot be used on the connection
     */
    MajorityReads(Connection connection, Collection<String> streams, PrintStream out) throws IOException {
        this.connection = connection;
        this.jsm = connection.jetStreamManagement(JetStreamOptions.builder().requestTimeout(REQUEST_TIMEOUT).build());
        this.streams = List.copyOf(streams);
        this.out = out;
    }

    /**
     * @return how many times the connection was moved away from a server cut off from the
     * majority
     */
    int reconnects() {
        return reconnects;
    }

    /**
     * Asks the connected server: its reach of the stream leaders
     * ({@link JetStreamReach#probe}), the meta leader, and each stream leader's quorum
     * within {@link #RECENTLY}.
     * @return what it shows
     */
    View view() {
        if (connection.getStatus() != Connection.Status.CONNECTED) {
            return new View(false, false, "not connected to NATS (" + connection.getStatus() + ")");
        }
        String server = JetStreamReach.serverName(connection);
        Optional<JetStreamReach.Problem> reach = JetStreamReach.probe(jsm, streams, connection);
        if (reach.isPresent()) {
            return new View(false, reach.get().leaderUnreachable(), reach.get().describe());
        }
        if (!JetStreamReach.metaLeaderAnswers(jsm)) {
            return new View(false, true, "the cluster's meta leader does not answer through server " + server
                    + " (it is cut off from the cluster's majority)");
        }
        for (String stream : streams) {
            try {
                StreamInfo info = jsm.getStreamInfo(stream);
                Optional<JetStreamReach.Problem> quorum = JetStreamReach.ofQuorum(info, server, RECENTLY);
                if (quorum.isPresent()) {
                    return new View(false, true, quorum.get().describe());
                }
            }
            catch (JetStreamApiException e) {
                if (!JetStreamErrors.isNotFound(e)) {
                    return new View(false, false, "asking server " + server + " about stream " + stream + ": " + e);
                }
            }
            catch (IOException | RuntimeException e) {
                return new View(false, false, "asking server " + server + " about stream " + stream + ": " + e);
            }
        }
        return View.MAJORITY;
    }

    /**
     * Waits until the connected server's view is the majority's, moving the connection
     * away from a server cut off from it, checking every second.
     * @param giveUpNanos when to give up, on {@link System#nanoTime()}
     * @throws IllegalStateException naming the last reason when no server of the URL list
     * showed the majority's view in time: a report read then could count from a stale
     * view, so none is made
     * @throws InterruptedException when interrupted
     */
    void await(long giveUpNanos) throws InterruptedException {
        long started = System.nanoTime();
        String said = "";
        int minorityChecks = 0;
        while (true) {
            View view = view();
            if (view.majority()) {
                if (!said.isEmpty()) {
                    out.printf(
                            "NATS server %s shows the cluster's majority view after %.1f s; reading the report "
                                    + "there%n",
                            JetStreamReach.serverName(connection), (System.nanoTime() - started) / 1e9);
                }
                return;
            }
            if (System.nanoTime() > giveUpNanos) {
                throw new IllegalStateException("no NATS server of the URL list showed the cluster's majority view "
                        + "within " + Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s, so no report "
                        + "was read (it could count from a stale view); last: " + view.reason() + ". Check that the "
                        + "nats-servers run and reach one another (their routes), then run the demo again");
            }
            if (!view.reason().equals(said)) {
                out.printf("the report waits for the cluster's majority view: %s%n", view.reason());
                said = view.reason();
            }
            minorityChecks = view.minority() ? minorityChecks + 1 : 0;
            if (minorityChecks >= RECONNECT_AFTER_CHECKS && connection.getServers().size() > 1) {
                out.printf("leaving NATS server %s, cut off from the cluster's majority, for another server of the "
                        + "URL list%n", JetStreamReach.serverName(connection));
                minorityChecks = 0;
                reconnects++;
                try {
                    connection.forceReconnect();
                }
                catch (IOException e) {
                    out.printf("the reconnect failed (%s); asking again%n", e.getMessage());
                }
            }
            Thread.sleep(CHECK_MILLIS);
        }
    }

}
