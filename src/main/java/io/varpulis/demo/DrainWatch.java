package io.varpulis.demo;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.demo.MajorityReads.View;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Watches the group's durable consumers on the routing stream until the run has drained:
 * nothing pending nor unacknowledged on any edge, and every message the server gave up on
 * (max_deliver) parked, as the cluster's majority sees it (issues 25 and 30: a message
 * the server gave up on is neither pending nor unacknowledged, so counts alone call a run
 * drained while it is not), and says which stage finished last.
 */
final class DrainWatch {

    /**
     * The drain is given up when nothing moved for this long (a NATS outage under test
     * may last a minute).
     */
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(120);

    /**
     * The drain is polled this often (ms): the end-to-end time is the first poll that
     * found nothing pending.
     */
    private static final long DRAIN_POLL_MILLIS = 100;

    /**
     * Polls in a row that must find nothing pending (1.5 s) before the run is taken as
     * drained.
     */
    private static final int QUIET_POLLS = 15;

    private final PrintStream out;

    private final MajorityReads majority;

    private final ExpectedAlerts.Reference expected;

    private final GivenUpWatch givenUp;

    /**
     * @param out where progress and the stages' times are printed
     * @param majority the reads' majority check
     * @param expected the reference, whose alert count the progress lines show
     * @param givenUp the messages the server gave up on since before the run
     */
    DrainWatch(PrintStream out, MajorityReads majority, ExpectedAlerts.Reference expected, GivenUpWatch givenUp) {
        this.out = out;
        this.majority = majority;
        this.expected = expected;
        this.givenUp = givenUp;
    }

    /**
     * Waits until every edge's consumer has nothing pending or unacknowledged
     * ({@link #QUIET_POLLS} polls in a row), printing progress every 5 s and, once
     * drained, when each pipeline was last seen with messages pending (the stage that
     * finished last is what bounded the run); gives up when nothing moved for
     * {@link #DRAIN_TIMEOUT}.
     * @param jsm the demo's connection's
     * @param group the deployed group
     * @param alertsFile the alert file, counted in the progress lines
     * @param firstPublish when the first line was published, what the stages' times are
     * counted from
     * @return when the consumers were first seen drained, or now when they never were
     * @throws InterruptedException when interrupted
     */
    Instant awaitDrained(JetStreamManagement jsm, PipelineGroupSpec group, Path alertsFile, Instant firstPublish)
            throws Exception {
        Map<String, Instant> busy = new LinkedHashMap<>();
        long lastMove = System.nanoTime();
        long progressAt = lastMove + BruteForceDemo.PROGRESS_NANOS;
        String lastSeen = "";
        Instant idleSince = null;
        int quiet = 0;
        while (System.nanoTime() - lastMove < DRAIN_TIMEOUT.toNanos()) {
            List<String> pending = new ArrayList<>();
            long total = 0;
            try {
                for (RouteEdge edge : edges(group)) {
                    ConsumerInfo info = consumer(jsm, edge);
                    long left = info == null ? -1 : info.getNumPending() + info.getNumAckPending();
                    total += Math.max(left, 0);
                    if (left != 0) {
                        busy.put(edge.to(), Instant.now());
                    }
                    pending.add((edge.isPartition() ? edge.to() + "/" + edge.partition() : edge.to()) + " "
                            + (left < 0 ? "not consuming yet" : left + " pending"));
                }
                List<Long> unparked = givenUp.unparked(jsm);
                if (!unparked.isEmpty()) {
                    total += unparked.size();
                    pending.add(unparked.size() + " given up by the server, not parked yet");
                }
            }
            catch (IOException e) {
                // NATS away (restarting, electing a leader): not drained; given up only
                // after DRAIN_TIMEOUT.
                pending = List.of("NATS not answering (" + e.getMessage() + ")");
                total = -1;
            }
            long alerts = alertLines(alertsFile);
            String seen = pending + "/" + alerts;
            if (!seen.equals(lastSeen)) {
                lastMove = System.nanoTime();
                lastSeen = seen;
            }
            boolean idle = total == 0 && !seen.contains("not consuming yet");
            idleSince = idle ? (idleSince == null ? Instant.now() : idleSince) : null;
            quiet = idle ? quiet + 1 : 0;
            if (quiet == QUIET_POLLS) {
                // Drained as the majority sees it, not as a server cut off from it
                // remembers (issue 25, partition).
                if (majority.view().majority()) {
                    StringBuilder stages = new StringBuilder();
                    busy.forEach((to, at) -> stages.append(String.format(Locale.ROOT, " %s +%.2f s", to,
                            Duration.between(firstPublish, at).toNanos() / 1e9)));
                    if (busy.isEmpty()) {
                        out.printf("where the time went: every pipeline had caught up when the feed ended (the feed "
                                + "set the pace)%n");
                    }
                    else {
                        out.printf("where the time went: each pipeline last seen with messages pending, after the "
                                + "first publish:%s%n", stages);
                    }
                    return idleSince;
                }
                majority.await(System.nanoTime() + DRAIN_TIMEOUT.toNanos());
                quiet = 0;
                idleSince = null;
                lastMove = System.nanoTime();
                continue;
            }
            if (System.nanoTime() >= progressAt) {
                View view = majority.view();
                if (view.minority()) {
                    out.printf("waiting for the pipelines through a server cut off from the cluster's majority: %s%n",
                            view.reason());
                    majority.await(System.nanoTime() + DRAIN_TIMEOUT.toNanos());
                    lastMove = System.nanoTime();
                }
                out.printf("waiting for the pipelines: %s; %d of %d alerts written%n", String.join(", ", pending),
                        alerts, expected.alerts().size());
                progressAt = System.nanoTime() + BruteForceDemo.PROGRESS_NANOS;
            }
            Thread.sleep(DRAIN_POLL_MILLIS);
        }
        out.printf("the consumers still had messages pending and nothing moved for %d s%n", DRAIN_TIMEOUT.toSeconds());
        return Instant.now();
    }

    /**
     * @return the non-blank lines of the alert file, 0 while there is none
     */
    private static long alertLines(Path alertsFile) throws IOException {
        if (!Files.exists(alertsFile)) {
            return 0;
        }
        try (Stream<String> lines = Files.lines(alertsFile, StandardCharsets.UTF_8)) {
            return lines.filter(l -> !l.isBlank()).count();
        }
    }

    /**
     * @param group a group
     * @return every edge a consumer reads: a partitioned pipeline's repartitioner edges
     * and its partitions'
     */
    static List<RouteEdge> edges(PipelineGroupSpec group) {
        return group.pipelines().stream().flatMap(p -> group.consumedEdges(p.name()).stream()).toList();
    }

    /**
     * @param jsm a connection's
     * @param edge an edge
     * @return the info of the edge's durable consumer on the routing stream, {@code null}
     * while it does not exist
     * @throws java.io.IOException when NATS does not answer
     */
    static ConsumerInfo consumer(JetStreamManagement jsm, RouteEdge edge) throws Exception {
        try {
            return jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM,
                    DurableNames.routeConsumer(edge.to(), edge.subject()));
        }
        catch (JetStreamApiException e) {
            return null;
        }
    }

}
