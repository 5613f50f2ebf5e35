package io.varpulis.demo;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.ProcessingContext;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The reference the distributed run is held to: the same processors applied in this process, in order, with
 * nothing killed. Also counts what the input holds.
 */
final class ExpectedAlerts {

    private ExpectedAlerts() {
    }

    /**
     * What a log holds and the alerts it must produce.
     *
     * @param lines        lines read
     * @param failureLines lines that are failures (one {@code SshAuthFailure} event each)
     * @param failures     failures counted (a {@code message repeated N times} line counts N)
     * @param malformed    lines that cannot be parsed (parked by the cluster)
     * @param alerts       the alerts, as their JSON lines' identity {@code src_ip window_start failures}
     */
    record Reference(int lines, int failureLines, int failures, int malformed, Set<String> alerts) {
    }

    static Reference of(List<String> lines, int[] years) throws Exception {
        SshLogIngressProcessor ingress = new SshLogIngressProcessor(years.length == 0 ? 1970 : years[0]);
        BruteForceDetector detector = new BruteForceDetector();
        KeyValueState state = new InMemoryKeyValueState();
        Set<String> alerts = new TreeSet<>();
        int failureLines = 0;
        int failures = 0;
        int malformed = 0;
        for (int i = 0; i < lines.size(); i++) {
            Event line = BruteForceDemo.lineEvent(lines.get(i), i + 1, years[i]);
            List<Event> parsed;
            try {
                parsed = ingress.process(line, context("line:" + (i + 1), state));
            } catch (IllegalArgumentException e) {
                malformed++;
                continue;
            }
            for (Event failure : parsed) {
                failureLines++;
                failures += ((Number) failure.fields().get(SshEvents.FAILURES)).intValue();
                for (Event alert : detector.process(failure, context("line:" + (i + 1) + "/detect/0", state))) {
                    alerts.add(identity(BruteForceAlert.fromEvent(alert)));
                }
            }
        }
        return new Reference(lines.size(), failureLines, failures, malformed, alerts);
    }

    /**
     * @param alert an alert
     * @return {@code src_ip window_start failures}, the identity two runs are compared on
     */
    static String identity(BruteForceAlert alert) {
        return alert.srcIp() + " " + alert.windowStart() + " " + alert.failures();
    }

    /**
     * @param fields an alert line's JSON fields
     * @return its identity
     */
    static String identity(Map<String, Object> fields) {
        return identity(BruteForceAlert.fromEvent(Event.of(SshEvents.BRUTE_FORCE_SUSPECTED, fields)));
    }

    static String describe(Set<String> alerts) {
        return alerts.stream().map(a -> "  " + a).collect(Collectors.joining("\n"));
    }

    private static ProcessingContext context(String messageId, KeyValueState state) {
        return new ProcessingContext() {
            @Override
            public String group() {
                return BruteForceDemo.GROUP;
            }

            @Override
            public String pipeline() {
                return "reference";
            }

            @Override
            public String messageId() {
                return messageId;
            }

            @Override
            public long attempt() {
                return 1;
            }

            @Override
            public KeyValueState state() {
                return state;
            }
        };
    }
}
