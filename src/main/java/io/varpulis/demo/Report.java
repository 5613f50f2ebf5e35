package io.varpulis.demo;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.varpulis.bruteforce.BruteForceDetector;
import io.varpulis.bruteforce.SshdLogLine;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.RouteEdge;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The demo's closing report and its JSON summary. The run's figures come from the server
 * (stream subjects and their message ids, consumer info, the DLQ, the detector's state
 * bucket) and from the alert file, never from the nodes, so a killed worker's lost memory
 * cannot hide anything. They are held to the in-process reference:
 * <ul>
 * <li>every line read is accounted for: parsed as a failure, counted as other, or parked,
 * as in the reference;</li>
 * <li>every failure reached {@code detect} exactly once in its state: each (window,
 * source) holds the count and the number of distinct inputs the reference holds, or is
 * alerted as the reference is;</li>
 * <li>the alerts written are the expected ones, compared by (src_ip, window_start) only
 * (SPEC section 7).</li>
 * </ul>
 * Longer than most: the report's sections and its JSON summary are rendered from this one
 * record, so that the two can never disagree.
 *
 * @param expected what the input holds and must produce
 * @param edges per route edge, as the server saw it
 * @param alerts the alert file's alerts by identity, with their failure count
 * @param doubled identities the alert file holds more than once
 * @param state what detect's state holds against the reference
 * @param timing how long it took
 * @param alertsFile the alert file
 * @param killed what was killed and when, for the result line, or {@code null}
 * @param givenUp the routing stream's messages the server gave up on during the run, and
 * those not parked
 * @param losses what the nodes and the demo found the servers lost (issue 43: a stream,
 * consumer or bucket gone, a stream or a state gone back, messages published and
 * acknowledged then lost), one sentence each prefixed by who found it
 */
record Report(ExpectedAlerts.Reference expected, List<EdgeRow> edges, Map<String, Integer> alerts, Set<String> doubled,
        StateAudit state, Timing timing, Path alertsFile, String killed, GivenUp givenUp, List<String> losses) {

    /** Losses named in the result line; the rest are counted. */
    private static final int LOSSES_NAMED = 8;

    /**
     * @param found what the nodes and the demo found the servers lost
     * @return this report with them
     */
    Report withLosses(List<String> found) {
        return new Report(expected, edges, alerts, doubled, state, timing, alertsFile, killed, givenUp,
                List.copyOf(found));
    }

    /**
     * @param losses what the nodes and the demo found the servers lost, not empty
     * @return the problem that names them, the first {@value #LOSSES_NAMED} in full
     */
    static String lossesProblem(List<String> losses) {
        return "the NATS servers lost acknowledged data (" + losses.size()
                + " findings of the nodes, SPEC section 21): "
                + String.join("; ", losses.subList(0, Math.min(LOSSES_NAMED, losses.size())))
                + (losses.size() > LOSSES_NAMED ? "; and " + (losses.size() - LOSSES_NAMED) + " more" : "");
    }

    /**
     * The messages of the routing stream the server stopped delivering during the run
     * (max-deliveries advisories).
     *
     * @param sequences their stream sequences
     * @param unparked those no death envelope in the DLQ carries: they left without being
     * applied or parked
     */
    record GivenUp(List<Long> sequences, List<Long> unparked) {
    }

    /**
     * Alerts listed in the printed report, at most (all of them are in the alert file).
     */
    static final int LISTED = 20;

    /**
     * One route edge.
     *
     * @param edge the edge
     * @param published distinct messages (by {@code Nats-Msg-Id}) stored on its subject
     * @param duplicated messages stored beyond the first of their id (a retry after the
     * duplicate window)
     * @param applied events its pipeline applied and acked: events - parked - pending
     * (pending is counted in messages, so this is exact when nothing is pending, as a
     * passing run requires)
     * @param redelivered deliveries beyond the first
     * @param parked events its pipeline parked in the DLQ during this run (a batch's
     * elements one by one)
     * @param pending messages still pending or unacknowledged on its consumer at the end
     * @param events events the published messages carry: a batch's elements
     * ({@link io.varpulis.pipeline.EventBatch}), 1 for any other message
     */
    record EdgeRow(RouteEdge edge, long published, long duplicated, long applied, long redelivered, long parked,
            long pending, long events) {
    }

    /**
     * Detect's state held to the reference.
     *
     * @param failuresApplied failure events whose (window, source) the state holds as the
     * reference does: the sum of the two figures below
     * @param countedOnce of those, the events of windows below the threshold, each proven
     * counted exactly once (its message id once in the window's {@code seen}, the count
     * the reference's)
     * @param alertedWindows windows alerted as the reference alerts them; their events
     * are the rest of {@code failuresApplied}. An alerted window's count is frozen at the
     * crossing and later failures are ignored by design ({@link BruteForceDetector}), so
     * its state cannot show each event counted once: the ingress-to-detect edge does
     * (every message stored on it acked, which the ingress does only after applying it;
     * none pending or parked), and the single alert
     * @param wrong the windows it does not, described ({@code src_ip window_start: ...})
     * @param unexpected state keys the reference has no window for
     */
    record StateAudit(int failuresApplied, int countedOnce, int alertedWindows, List<String> wrong, int unexpected) {
    }

    /**
     * @param streamSeconds first publish to the last PubAck
     * @param endToEndSeconds first publish until every line was processed (the consumers
     * drained, seen within a 0.5 s poll) and the last alert written
     * @param rate the requested lines per second
     * @param steady the run's steady part ({@link SteadyWatch}), or {@code null} when it
     * could not be cut
     */
    record Timing(double streamSeconds, double endToEndSeconds, int rate, SteadyWatch.Steady steady) {
    }

    /**
     * @return the edges into {@code to}, summed: a partitioned pipeline's repartitioner
     * and partitions as one row
     */
    private EdgeRow edge(String to) {
        List<EdgeRow> into = edges.stream().filter(r -> r.edge().to().equals(to)).toList();
        return new EdgeRow(into.get(0).edge(), into.stream().mapToLong(EdgeRow::published).sum(),
                into.stream().mapToLong(EdgeRow::duplicated).sum(), into.stream().mapToLong(EdgeRow::applied).sum(),
                into.stream().mapToLong(EdgeRow::redelivered).sum(), into.stream().mapToLong(EdgeRow::parked).sum(),
                into.stream().mapToLong(EdgeRow::pending).sum(), into.stream().mapToLong(EdgeRow::events).sum());
    }

    /**
     * @return lines that produced a failure event, as stored on {@code ingress -> detect}
     */
    long linesParsed() {
        return edge("detect").events();
    }

    /**
     * @return lines the ingress applied without a failure
     */
    long linesOther() {
        return edge("ingress").applied() - linesParsed();
    }

    /**
     * @return lines the ingress parked
     */
    long linesParked() {
        return edge("ingress").parked();
    }

    /**
     * @return the expected alerts the file lacks, by identity
     */
    Set<String> missing() {
        Set<String> missing = new TreeSet<>(expected.alerts().keySet());
        missing.removeAll(alerts.keySet());
        return missing;
    }

    /**
     * @return the alerts the file holds that the reference does not raise, by identity
     */
    Set<String> unexpected() {
        Set<String> unexpected = new TreeSet<>(alerts.keySet());
        unexpected.removeAll(expected.alerts().keySet());
        return unexpected;
    }

    /**
     * @return every way this run differs from the reference; empty when it passed
     */
    List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!losses.isEmpty()) {
            problems.add(lossesProblem(losses));
        }
        long published = edge("ingress").events();
        if (published != expected.lines()) {
            problems.add((expected.lines() - published) + " lines read never reached the stream (" + published + " of "
                    + expected.lines() + " stored)");
        }
        for (EdgeRow row : edges) {
            if (row.pending() > 0) {
                problems.add(row.edge().name() + " still had " + row.pending() + " messages pending at the end");
            }
        }
        compare(problems, "lines parsed as failures", linesParsed(), expected.failureLineCount());
        compare(problems, "other lines", linesOther(), expected.otherLines());
        compare(problems, "lines parked", linesParked(), expected.malformed());
        // Re-emitted alerts carry their first emission's Nats-Msg-Id and are dropped by
        // the duplicate window: detect
        // stores each expected alert once on its output edge, or an alert was emitted
        // twice (or never).
        compare(problems, "alerts stored by detect on " + edge("alerts").edge().name(), edge("alerts").published(),
                expected.alerts().size());
        for (String to : List.of("detect", "alerts")) {
            if (edge(to).parked() > 0) {
                problems.add(edge(to).parked() + " events parked by " + to + " (see the DLQ console)");
            }
        }
        if (!givenUp.unparked().isEmpty()) {
            problems.add(givenUp.unparked().size() + " messages the server gave up on (max_deliver) and nobody "
                    + "parked: stream " + VarpulisJetStream.ROUTING_STREAM + " sequences " + givenUp.unparked());
        }
        if (state.failuresApplied() != failureEvents()) {
            problems.add((failureEvents() - state.failuresApplied()) + " failures whose window in detect's state is"
                    + " not the reference's: " + String.join("; ", state.wrong()));
        }
        if (state.unexpected() > 0) {
            problems.add(state.unexpected() + " state keys for windows the log does not have");
        }
        if (!missing().isEmpty()) {
            problems.add("missing: " + String.join(", ", missing()));
        }
        if (!unexpected().isEmpty()) {
            problems.add("unexpected: " + String.join(", ", unexpected()));
        }
        if (!doubled.isEmpty()) {
            problems.add("written more than once: " + String.join(", ", doubled));
        }
        return problems;
    }

    /**
     * @return {@code true} when every line, failure and alert is accounted for
     */
    boolean ok() {
        return problems().isEmpty();
    }

    private int failureEvents() {
        return expected.failureLineCount();
    }

    private static void compare(List<String> problems, String what, long got, long expected) {
        if (got != expected) {
            problems.add(what + ": " + got + ", expected " + expected);
        }
    }

    void print(PrintStream out) {
        out.println();
        out.println("== report ==");
        out.printf("lines: %d read = %d failures + %d other + %d parked (expected %d + %d + %d)%n", expected.lines(),
                linesParsed(), linesOther(), linesParked(), expected.failureLineCount(), expected.otherLines(),
                expected.malformed());
        Map<SshdLogLine.Form, Integer> forms = expected.failureLines();
        out.printf(
                "  failure lines: %d Failed, %d message repeated, %d legacy PAM (%d failures in all); other: %d "
                        + "sshd, %d of other programs%n",
                forms.get(SshdLogLine.Form.FAILED), forms.get(SshdLogLine.Form.MESSAGE_REPEATED),
                forms.get(SshdLogLine.Form.LEGACY_PAM), expected.failures(), expected.otherSshd(),
                expected.otherPrograms());
        if (expected.malformed() > 0) {
            out.printf("  WARNING: %d lines could not be parsed and were parked; first: %s%n", expected.malformed(),
                    String.join(" | ", expected.malformedSamples()));
        }
        out.printf("%-36s %10s %10s %10s %12s %8s %11s%n", "edge", "messages", "events", "applied", "redelivered",
                "parked", "duplicated");
        for (EdgeRow r : edges) {
            out.printf("%-36s %10d %10d %10d %12d %8d %11d%n", r.edge().name(), r.published(), r.events(), r.applied(),
                    r.redelivered(), r.parked(), r.duplicated());
        }
        out.println("  (messages stored, and the events they carry: a batch's elements; applied, parked: events;"
                + " redelivered, duplicated: messages)");
        if (!givenUp.sequences().isEmpty()) {
            out.printf("given up by the server (max_deliver): %d message(s), %d parked from the stream%n",
                    givenUp.sequences().size(), givenUp.sequences().size() - givenUp.unparked().size());
        }
        out.printf(
                "failures: %d expected, %d as the reference in detect's state: %d counted once each in windows"
                        + " below the threshold, %d in the %d windows alerted (counts frozen at the crossing)%n",
                failureEvents(), state.failuresApplied(), state.countedOnce(),
                state.failuresApplied() - state.countedOnce(), state.alertedWindows());
        out.printf("alerts: %d expected, %d written to %s; missing: %s; unexpected: %s%n", expected.alerts().size(),
                alerts.size(), alertsFile, names(missing()), names(unexpected()));
        alerts.entrySet()
            .stream()
            .limit(LISTED)
            .forEach(a -> out.printf("  %s (%d failures)%n", a.getKey(), a.getValue()));
        if (alerts.size() > LISTED) {
            out.printf("  ... and %d more in the alert file%n", alerts.size() - LISTED);
        }
        out.printf(Locale.ROOT,
                "end to end: %d lines in %.1f s from the first publish until all were processed "
                        + "and the last alert written (%.0f lines/s; streamed in %.1f s at up to %d lines/s)%n",
                expected.lines(), timing.endToEndSeconds(),
                expected.lines() / Math.max(timing.endToEndSeconds(), 0.001), timing.streamSeconds(), timing.rate());
        if (timing.steady() != null) {
            out.printf(Locale.ROOT,
                    "steady part: %.0f lines/s from %.2f s to %.2f s after the first publish (%.0f %% "
                            + "to %.0f %% of detect's input acknowledged)%n",
                    timing.steady().linesPerSecond(), timing.steady().fromSeconds(), timing.steady().toSeconds(),
                    SteadyWatch.FROM * 100, SteadyWatch.TO * 100);
        }
        List<String> problems = problems();
        if (problems.isEmpty()) {
            out.println("RESULT: OK, every line accounted for, every failure applied, every alert written once"
                    + (killed == null ? "" : ", although " + killed));
        }
        else {
            out.println("RESULT: FAILED");
            problems.forEach(p -> out.println("  " + p));
        }
    }

    private static String names(Set<String> identities) {
        return identities.isEmpty() ? "none" : String.join(", ", identities);
    }

    /**
     * @return the JSON summary of {@code --summary-json}
     */
    Summary summary() {
        List<Summary.Edge> rows = edges.stream()
            .map(r -> new Summary.Edge(r.edge().name(), r.published(), r.events(), r.applied(), r.redelivered(),
                    r.parked(), r.duplicated()))
            .toList();
        return new Summary(expected.lines(), linesParsed(), linesOther(), linesParked(), failureEvents(),
                state.failuresApplied(), state.countedOnce(), state.alertedWindows(), rows, expected.alerts().size(),
                alerts.size(), List.copyOf(missing()), List.copyOf(unexpected()), ok() ? "OK" : "FAILED", problems(),
                new Summary.Lines(expected.failureLineCount(), expected.otherLines(), expected.malformed()),
                expected.failures(), timing.endToEndSeconds(),
                expected.lines() / Math.max(timing.endToEndSeconds(), 0.001),
                timing.steady() == null ? null : timing.steady().linesPerSecond(),
                timing.steady() == null ? null : timing.steady().fromSeconds(),
                timing.steady() == null ? null : timing.steady().toSeconds(), null, losses);
    }

    /**
     * The {@code --summary-json} file, for scripts (the fault suite): one JSON object
     * <pre>
     * {"lines_read": 2000, "lines_parsed": 520, "lines_other": 1480, "lines_parked": 0,
     *  "failures_expected": 520, "failures_applied": 520, "failures_counted_once": 40, "windows_alerted": 15,
     *  "edges": [{"edge": "ssh-bruteforce._external.ingress", "published": 4, "events": 2000, "applied": 2000,
     *             "redelivered": 0, "parked": 0, "duplicated": 0}, ...],
     *  "alerts_expected": 15, "alerts_got": 15, "alerts_missing": [], "alerts_unexpected": [],
     *  "result": "OK", "problems": [], "lines_expected": {"parsed": 520, "other": 1480, "parked": 0},
     *  "failures_counted": 528, "seconds_end_to_end": 12.3, "lines_per_second_end_to_end": 162.6,
     *  "lines_per_second_steady": 171.0, "steady_from_seconds": 2.1, "steady_to_seconds": 9.4}
     * </pre> Failures are counted as events (one per failure line), except
     * {@code failures_counted}, where a {@code message repeated N times} line counts N.
     * Alerts are named {@code "src_ip window_start"}. {@code error} is present only when
     * the run stopped before its report.
     *
     * @param linesRead lines read from the input
     * @param linesParsed lines the cluster turned into a failure event
     * @param linesOther lines the cluster applied without a failure
     * @param linesParked lines the cluster parked
     * @param failuresExpected failure events of the reference
     * @param failuresApplied failure events whose window detect's state holds as the
     * reference does
     * @param failuresCountedOnce of those, the events of windows below the threshold,
     * each proven counted once
     * @param windowsAlerted windows alerted as the reference; an alerted window freezes
     * its count at the crossing, so its events are accounted for by the edges and the
     * alert, not by the state
     * @param edges per route edge
     * @param alertsExpected alerts of the reference
     * @param alertsGot distinct alerts in the alert file
     * @param alertsMissing expected alerts not written
     * @param alertsUnexpected alerts written that the reference does not raise
     * @param result {@code OK} or {@code FAILED}
     * @param problems why it failed, one sentence each
     * @param linesExpected the reference's accounting of the lines
     * @param failuresCounted failures of the reference, {@code message repeated N times}
     * counting N
     * @param secondsEndToEnd first publish until every line was processed and the last
     * alert written
     * @param linesPerSecond lines read / secondsEndToEnd
     * @param linesPerSecondSteady lines per second over the run's steady part
     * ({@link SteadyWatch}: from 20 % to 80 % of detect's input acknowledged), absent
     * when it could not be cut
     * @param steadyFromSeconds the steady part's start, seconds after the first publish
     * @param steadyToSeconds its end, seconds after the first publish
     * @param error why the run stopped early, or {@code null}
     * @param losses what the nodes and the demo found the servers lost (issue 43), one
     * sentence each; absent when the run stopped early
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Summary(@JsonProperty("lines_read") long linesRead, @JsonProperty("lines_parsed") long linesParsed,
            @JsonProperty("lines_other") long linesOther, @JsonProperty("lines_parked") long linesParked,
            @JsonProperty("failures_expected") long failuresExpected,
            @JsonProperty("failures_applied") long failuresApplied,
            @JsonProperty("failures_counted_once") long failuresCountedOnce,
            @JsonProperty("windows_alerted") long windowsAlerted, @JsonProperty("edges") List<Edge> edges,
            @JsonProperty("alerts_expected") long alertsExpected, @JsonProperty("alerts_got") long alertsGot,
            @JsonProperty("alerts_missing") List<String> alertsMissing,
            @JsonProperty("alerts_unexpected") List<String> alertsUnexpected, @JsonProperty("result") String result,
            @JsonProperty("problems") List<String> problems, @JsonProperty("lines_expected") Lines linesExpected,
            @JsonProperty("failures_counted") Integer failuresCounted,
            @JsonProperty("seconds_end_to_end") Double secondsEndToEnd,
            @JsonProperty("lines_per_second_end_to_end") Double linesPerSecond,
            @JsonProperty("lines_per_second_steady") Double linesPerSecondSteady,
            @JsonProperty("steady_from_seconds") Double steadyFromSeconds,
            @JsonProperty("steady_to_seconds") Double steadyToSeconds, @JsonProperty("error") String error,
            @JsonProperty("losses") List<String> losses) {

        /**
         * A run that stopped before its report: {@code result} FAILED with the reason,
         * the reference's figures, and zero for everything the cluster did not report.
         * @param expected the reference, or {@code null} when the input was not read
         * @param error why the run stopped
         * @return the summary
         */
        static Summary failed(ExpectedAlerts.Reference expected, String error) {
            return failed(expected, error, List.of());
        }

        /**
         * A run that stopped before its report, after the servers lost data (issue 43: a
         * power loss can leave the servers unable to take the job's messages): as
         * {@link #failed(ExpectedAlerts.Reference, String)}, the losses among its
         * problems and in {@code losses}.
         * @param expected the reference, or {@code null} when the input was not read
         * @param error why the run stopped
         * @param losses what the nodes and the demo found the servers lost until then
         * @return the summary
         */
        static Summary failed(ExpectedAlerts.Reference expected, String error, List<String> losses) {
            List<String> missing = expected == null ? List.of() : List.copyOf(expected.alerts().keySet());
            List<String> problems = losses.isEmpty() ? List.of(error) : List.of(error, lossesProblem(losses));
            return new Summary(expected == null ? 0 : expected.lines(), 0, 0, 0,
                    expected == null ? 0 : expected.failureLineCount(), 0, 0, 0, List.of(),
                    expected == null ? 0 : expected.alerts().size(), 0, missing, List.of(), "FAILED", problems,
                    expected == null ? null
                            : new Lines(expected.failureLineCount(), expected.otherLines(), expected.malformed()),
                    expected == null ? null : expected.failures(), null, null, null, null, null, error,
                    losses.isEmpty() ? null : List.copyOf(losses));
        }

        /**
         * @param path where to write it (replaced if it exists)
         * @throws IOException when it cannot be written
         */
        void write(Path path) throws IOException {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(path.toFile(), this);
        }

        /**
         * One edge of {@link Summary}.
         *
         * @param edge {@code group.from.to}
         * @param published distinct messages stored
         * @param events events they carry (a batch's elements)
         * @param applied events applied and acked
         * @param redelivered deliveries beyond the first (messages)
         * @param parked events parked in the DLQ during the run
         * @param duplicated messages stored beyond the first of their id
         */
        record Edge(@JsonProperty("edge") String edge, @JsonProperty("published") long published,
                @JsonProperty("events") long events, @JsonProperty("applied") long applied,
                @JsonProperty("redelivered") long redelivered, @JsonProperty("parked") long parked,
                @JsonProperty("duplicated") long duplicated) {
        }

        /**
         * The reference's accounting of the lines.
         *
         * @param parsed failure lines
         * @param other other lines
         * @param parked lines to park
         */
        record Lines(@JsonProperty("parsed") long parsed, @JsonProperty("other") long other,
                @JsonProperty("parked") long parked) {
        }
    }
}
