package io.varpulis.demo;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import io.varpulis.bruteforce.BruteForceAlert;
import io.varpulis.bruteforce.BruteForceDetector;
import io.varpulis.bruteforce.SshEvents;
import io.varpulis.demo.MajorityReads.View;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.JetStreamErrors;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.KeyValueState.StateUnavailableException;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
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
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * Reads the run's closing figures from NATS and the alert file into a {@link Report}
 * (which prints them): per edge, the distinct messages and events stored, applied,
 * redelivered, parked and pending; the alerts written; detect's state held to the
 * reference window by window; and the timing (SPEC section 7).
 */
final class RunReport {

    /** How long the state audit waits for a bucket's stream leader to answer one read. */
    private static final Duration AUDIT_READ_TIMEOUT = Duration.ofSeconds(5);

    private static final ObjectMapper JSON = new EventCodec().mapper();

    private final DemoOptions options;

    private final ExpectedAlerts.Reference expected;

    private final PrintStream out;

    /**
     * @param options {@code --rate}, {@code --detect-partitions}
     * @param expected the reference the figures are held to
     * @param out where a reading made again is said
     */
    RunReport(DemoOptions options, ExpectedAlerts.Reference expected, PrintStream out) {
        this.options = options;
        this.expected = expected;
        this.out = out;
    }

    /**
     * The report, asked again while NATS does not answer (a cluster electing a leader, a
     * server still down): the pipelines may be drained before a killed server is back,
     * and its figures must come from the server. Each reading is taken between two views
     * of the cluster's majority (issue 25).
     * @param connection the demo's connection
     * @param majority the reads' majority check
     * @param group the deployed group
     * @param parkedBefore {@link #parked} before the run: a shared server's earlier parks
     * are not counted
     * @param alertsFile the alert file the {@code alerts} pipeline wrote
     * @param stream how the stream went
     * @param drained when the consumers were first seen drained
     * @param killed what was killed, for the report, or {@code null}
     * @param givenUp the messages the server gave up on, and whether each was parked
     * @param steady the run's steady part, or {@code null} when it could not be cut
     * @return the report, not printed
     * @throws IOException when NATS still does not answer
     * {@link DrainWatch#DRAIN_TIMEOUT} after the first reading (likewise a
     * {@link JetStreamApiException} or {@link StateUnavailableException})
     */
    Report read(Connection connection, MajorityReads majority, PipelineGroupSpec group, Map<String, Long> parkedBefore,
            Path alertsFile, LogFeeder.Streamed stream, Instant drained, String killed, GivenUpWatch givenUp,
            SteadyWatch.Steady steady) throws Exception {
        long giveUp = System.nanoTime() + DrainWatch.DRAIN_TIMEOUT.toNanos();
        while (true) {
            try {
                // Read between two majority views: a server cut off meanwhile would have
                // answered from a stale one.
                majority.await(giveUp);
                Report report = report(connection, group, parkedBefore, alertsFile, stream, drained, killed, givenUp,
                        steady);
                View after = majority.view();
                if (after.majority()) {
                    return report;
                }
                out.printf("the view changed while the report was read (%s); reading it again%n", after.reason());
            }
            catch (IOException | JetStreamApiException | StateUnavailableException e) {
                if (System.nanoTime() > giveUp) {
                    throw e;
                }
                out.printf("NATS did not answer while the report was read (%s); asking again in a second%n",
                        e.getMessage());
                Thread.sleep(1000);
            }
        }
    }

    private Report report(Connection connection, PipelineGroupSpec group, Map<String, Long> parkedBefore,
            Path alertsFile, LogFeeder.Streamed stream, Instant drained, String killed, GivenUpWatch givenUp,
            SteadyWatch.Steady steady) throws Exception {
        JetStreamManagement jsm = connection.jetStreamManagement();
        Map<String, Long> stored = storedPerSubject(jsm);
        Map<String, Long> parkedAfter = parked(jsm, group);
        List<Report.EdgeRow> rows = new ArrayList<>();
        Set<String> parkedCounted = new HashSet<>();
        for (RouteEdge edge : DrainWatch.edges(group)) {
            ConsumerInfo info = DrainWatch.consumer(jsm, edge);
            long total = stored.getOrDefault(edge.subject(), 0L);
            SubjectReads.Carried carried = SubjectReads.carried(connection, edge.subject(), total);
            long distinct = carried.messages();
            long pending = info == null ? distinct : info.getNumPending() + info.getNumAckPending();
            // A pipeline's parked events are counted once, on its first edge (the DLQ
            // subject is per pipeline).
            long parked = !parkedCounted.add(edge.to()) ? 0
                    : parkedAfter.getOrDefault(edge.to(), 0L) - parkedBefore.getOrDefault(edge.to(), 0L);
            long deliveries = info == null ? 0 : info.getDelivered().getConsumerSequence();
            long redelivered = Math.max(0, deliveries - (total - (info == null ? 0 : info.getNumPending())));
            rows.add(new Report.EdgeRow(edge, distinct, total - distinct,
                    Math.max(0, carried.events() - pending - parked), redelivered, parked, pending, carried.events()));
        }
        Map<String, Integer> alerts = new TreeMap<>();
        Set<String> doubled = new TreeSet<>();
        if (Files.exists(alertsFile)) {
            for (String line : Files.readAllLines(alertsFile, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    BruteForceAlert alert = BruteForceAlert.fromEvent(Event.of(SshEvents.BRUTE_FORCE_SUSPECTED,
                            JSON.readValue(line, new TypeReference<Map<String, Object>>() {
                            })));
                    String identity = ExpectedAlerts.identity(alert.srcIp(), alert.windowStart());
                    if (alerts.put(identity, alert.failures()) != null) {
                        doubled.add(identity);
                    }
                }
            }
        }
        // Done when every line was processed (drained, seen within a 0.1 s poll) and the
        // last alert written.
        Instant end = alerts.isEmpty() ? drained
                : Collections.max(List.of(drained, Files.getLastModifiedTime(alertsFile).toInstant()));
        Report.Timing timing = new Report.Timing(stream.seconds(),
                Duration.between(stream.firstPublish(), end).toMillis() / 1000.0, options.rate(), steady);
        return new Report(expected, rows, alerts, doubled, auditState(connection), timing, alertsFile, killed,
                new Report.GivenUp(givenUp.givenUp(), givenUp.unparked(jsm)), List.of());
    }

    /**
     * Holds detect's state bucket to the reference, window by window: an alerted window
     * must be alerted (its count frozen at the crossing), any other must hold the
     * reference's count from as many distinct inputs (each failure counted once, none
     * missed).
     */
    private Report.StateAudit auditState(Connection connection) throws Exception {
        // A partitioned detect keeps each source's windows in its partition's bucket; the
        // keys never overlap.
        Map<String, String> bucketOf = new HashMap<>();
        List<String> keys = new ArrayList<>();
        List<String> buckets = new ArrayList<>();
        for (int partition : detectPartitions(options)) {
            try {
                String name = JetStreamKeyValueState.bucketName(BruteForceDemo.GROUP, "detect", partition);
                for (String key : connection.keyValue(name).keys()) {
                    keys.add(key);
                    bucketOf.put(key, name);
                }
                buckets.add(name);
            }
            catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != JetStreamErrors.STREAM_NOT_FOUND) {
                    // Not an answer about the bucket (a timeout while a killed server
                    // rejoins): the report is asked
                    // again, rather than every window called missing (a false FAILED seen
                    // in fault scenario b).
                    throw e;
                }
                // No bucket: every window shows as missing below.
            }
        }
        int applied = 0;
        int countedOnce = 0;
        int alertedWindows = 0;
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, ExpectedAlerts.Window> entry : expected.windows().entrySet()) {
            ExpectedAlerts.Window window = entry.getValue();
            // From the stream leader, as detect reads its state: a direct get may be
            // answered by a replica that is
            // still catching up after a restart, and call a window written meanwhile
            // missing (fault scenario b). The
            // key listing goes through an ordered consumer that may sit on such a replica
            // too: a window it left out
            // is looked for in every bucket's leader before it is called missing.
            String bucket = bucketOf.get(entry.getKey());
            byte[] got = null;
            for (String candidate : bucket != null ? List.of(bucket) : buckets) {
                got = JetStreamKeyValueState.readFromLeader(connection, candidate, entry.getKey(), AUDIT_READ_TIMEOUT)
                    .orElse(null);
                if (got != null) {
                    break;
                }
            }
            String problem = ExpectedAlerts.compare(window,
                    got == null ? null : ExpectedAlerts.windowState(got, entry.getKey()));
            if (problem == null) {
                applied += window.events();
                if (window.state().alerted()) {
                    alertedWindows++;
                }
                else {
                    countedOnce += window.events();
                }
            }
            else if (wrong.size() < Report.LISTED) {
                wrong.add(window.identity() + ": " + problem);
            }
        }
        Set<String> unexpected = new HashSet<>(keys);
        unexpected.removeAll(expected.windows().keySet());
        return new Report.StateAudit(applied, countedOnce, alertedWindows, wrong, unexpected.size());
    }

    /**
     * @param options {@code --detect-partitions}
     * @return the streams the report reads: routed events, the DLQ, detect's state
     * buckets
     */
    static List<String> streams(DemoOptions options) {
        List<String> streams = new ArrayList<>(List.of(VarpulisJetStream.ROUTING_STREAM, VarpulisJetStream.DLQ_STREAM));
        detectPartitions(options)
            .forEach(p -> streams.add("KV_" + JetStreamKeyValueState.bucketName(BruteForceDemo.GROUP, "detect", p)));
        return streams;
    }

    /**
     * @return detect's partitions, {@link Partitioning#NONE} alone when it is
     * unpartitioned
     */
    private static List<Integer> detectPartitions(DemoOptions options) {
        int partitions = options.detectPartitions();
        return partitions == 1 ? List.of(Partitioning.NONE) : IntStream.range(0, partitions).boxed().toList();
    }

    /**
     * @return messages stored on the routing stream per subject of the group
     */
    private static Map<String, Long> storedPerSubject(JetStreamManagement jsm) throws Exception {
        Map<String, Long> counts = new LinkedHashMap<>();
        List<Subject> subjects = jsm
            .getStreamInfo(VarpulisJetStream.ROUTING_STREAM,
                    StreamInfoOptions.filterSubjects("varpulis.cluster.pipeline." + BruteForceDemo.GROUP + ".>"))
            .getStreamState()
            .getSubjects();
        if (subjects != null) {
            subjects.forEach(s -> counts.put(s.getName(), s.getCount()));
        }
        return counts;
    }

    /**
     * @param jsm a connection's
     * @param group the group
     * @return events parked in the DLQ per pipeline of the group (pipelines with none
     * left out)
     * @throws IOException when NATS does not answer
     * @throws JetStreamApiException when the DLQ stream does not exist
     */
    static Map<String, Long> parked(JetStreamManagement jsm, PipelineGroupSpec group) throws Exception {
        Map<String, Long> counts = new LinkedHashMap<>();
        List<Subject> subjects = jsm
            .getStreamInfo(VarpulisJetStream.DLQ_STREAM, StreamInfoOptions.filterSubjects(DurableNames.DLQ_ROOT + ".>"))
            .getStreamState()
            .getSubjects();
        if (subjects != null) {
            for (PipelineSpec pipeline : group.pipelines()) {
                String subject = DurableNames.dlqSubject(pipeline.name());
                subjects.stream()
                    .filter(s -> s.getName().equals(subject))
                    .forEach(s -> counts.put(pipeline.name(), s.getCount()));
            }
        }
        return counts;
    }

}
