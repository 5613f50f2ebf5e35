package io.varpulis.demo;

import io.varpulis.pipeline.RouteEdge;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The demo's closing report. Counts come from the server (stream subjects, consumer info, the DLQ), not from the
 * nodes, so a killed worker's lost memory cannot hide anything.
 *
 * @param expected    what the input holds and the alerts it must produce
 * @param edges       per route edge: published (stored in the stream), applied, redelivered, parked
 * @param alerts      the alerts found in the alert file
 * @param alertsFile  the alert file
 * @param killed      whether a worker was killed during the run
 */
record Report(ExpectedAlerts.Reference expected, List<EdgeRow> edges, Set<String> alerts, Path alertsFile,
              boolean killed) {

    /**
     * One route edge.
     *
     * @param edge        the edge
     * @param published   events stored on its subject
     * @param applied     events its pipeline applied and acked (published - pending - parked)
     * @param redelivered deliveries beyond the first
     * @param parked      events its pipeline parked in the DLQ during this run
     */
    record EdgeRow(RouteEdge edge, long published, long applied, long redelivered, long parked) {
    }

    /**
     * @return published - applied - parked over every edge: events still unapplied
     */
    long lost() {
        return edges.stream().mapToLong(r -> r.published() - r.applied() - r.parked()).sum();
    }

    /**
     * @return the failures that did not reach detect: lines parsed as failures here minus events stored on
     * {@code ingress -> detect} (a loss before publish would show here)
     */
    long missingFailures() {
        return edges.stream().filter(r -> r.edge().to().equals("detect"))
                .mapToLong(r -> expected.failureLines() - r.published()).sum();
    }

    /**
     * @return {@code true} when nothing was lost and the alerts are exactly the expected ones
     */
    boolean ok() {
        return lost() == 0 && missingFailures() == 0 && alerts.equals(expected.alerts());
    }

    void print(PrintStream out) {
        out.println();
        out.println("== report ==");
        out.printf("lines read: %d; failures parsed: %d lines, %d failures; malformed lines: %d%n",
                expected.lines(), expected.failureLines(), expected.failures(), expected.malformed());
        out.printf("%-40s %10s %10s %12s %8s%n", "edge", "published", "applied", "redelivered", "parked");
        for (EdgeRow r : edges) {
            out.printf("%-40s %10d %10d %12d %8d%n", r.edge().name(), r.published(), r.applied(), r.redelivered(),
                    r.parked());
        }
        out.printf("alerts: %d (in %s)%n%s%n", alerts.size(), alertsFile, ExpectedAlerts.describe(alerts));
        boolean same = alerts.equals(expected.alerts());
        out.printf("expected alerts (same processors in one process, nothing killed): %d; identical: %s%n",
                expected.alerts().size(), same ? "yes" : "NO");
        if (!same) {
            out.printf("missing:%n%s%nunexpected:%n%s%n", ExpectedAlerts.describe(difference(expected.alerts(),
                    alerts)), ExpectedAlerts.describe(difference(alerts, expected.alerts())));
        }
        out.printf("failures that never reached detect: %d%n", missingFailures());
        out.printf("lost = published - applied - parked = %d%n", lost());
        out.println(ok() ? "RESULT: OK, nothing lost" + (killed ? " although a worker was killed mid-stream" : "")
                : "RESULT: FAILED");
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> d = new java.util.TreeSet<>(a);
        d.removeAll(b);
        return d;
    }
}
