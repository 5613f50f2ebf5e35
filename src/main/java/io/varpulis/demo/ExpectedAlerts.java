package io.varpulis.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.bruteforce.BruteForceAlert;
import io.varpulis.bruteforce.BruteForceDetector;
import io.varpulis.bruteforce.SshLogIngressProcessor;
import io.varpulis.bruteforce.SshdLogLine;
import io.varpulis.bruteforce.SshdLogParser;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.KeyValueState;
import io.varpulis.pipeline.ProcessingContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reference the distributed run is held to: the same processors applied in this
 * process, in order, with nothing killed. Also counts what the input holds, line by line
 * and window by window.
 */
final class ExpectedAlerts {

    /** Malformed lines quoted in the report, at most. */
    static final int SAMPLES = 3;

    private static final ObjectMapper JSON = new ObjectMapper();

    private ExpectedAlerts() {
    }

    /**
     * What a log holds and the alerts it must produce.
     *
     * @param lines lines read
     * @param failureLines lines that are failures (one {@code SshAuthFailure} event
     * each), by form
     * @param failures failures counted (a {@code message repeated N times} line counts N)
     * @param otherSshd other lines of sshd's tags
     * @param otherPrograms lines of other programs
     * @param malformed lines parked by the cluster: not valid UTF-8, no parsable header,
     * or a failure from something that is neither an address nor a host name
     * @param malformedSamples the first {@value #SAMPLES} of them, {@code line N: reason}
     * @param alerts the alerts by identity ({@link #identity(String, Instant)}), with
     * their failure count
     * @param windows every (window, source) that had a failure, by the detector's state
     * key
     */
    record Reference(int lines, Map<SshdLogLine.Form, Integer> failureLines, int failures, int otherSshd,
            int otherPrograms, int malformed, List<String> malformedSamples, Map<String, Integer> alerts,
            Map<String, Window> windows) {

        /**
         * @return lines that are failures, all forms together
         */
        int failureLineCount() {
            return failureLines.values().stream().mapToInt(Integer::intValue).sum();
        }

        /**
         * @return lines read and counted without a failure
         */
        int otherLines() {
            return otherSshd + otherPrograms;
        }
    }

    /**
     * One (window, source) of the reference run: what the detector's state must hold for
     * it at the end.
     *
     * @param identity {@code src_ip window_start}
     * @param events failure events that fell in it
     * @param state the detector's final state of it (alerted, or its count and the ids it
     * counted)
     */
    record Window(String identity, int events, BruteForceDetector.WindowState state) {
    }

    /**
     * Runs the reference.
     * @param lines the log's lines (see {@link BruteForceDemo#lines(byte[])})
     * @param years the year of each line's RFC 3164 timestamp
     * @param zone the zone of RFC 3164 timestamps
     * @return what the log holds and must produce
     */
    static Reference of(List<LogInput.LogLine> lines, int[] years, ZoneId zone) {
        SshLogIngressProcessor ingress = new SshLogIngressProcessor(years.length == 0 ? 1970 : years[0], zone);
        BruteForceDetector detector = new BruteForceDetector();
        KeyValueState state = new InMemoryKeyValueState();
        Map<String, Integer> alerts = new TreeMap<>();
        Map<SshdLogLine.Form, Integer> failureLines = new EnumMap<>(SshdLogLine.Form.class);
        for (SshdLogLine.Form form : SshdLogLine.Form.values()) {
            failureLines.put(form, 0);
        }
        Map<String, int[]> events = new LinkedHashMap<>();
        Map<String, String> identities = new LinkedHashMap<>();
        List<String> samples = new ArrayList<>();
        int failures = 0;
        int otherSshd = 0;
        int otherPrograms = 0;
        int malformed = 0;
        long window = BruteForceDetector.DEFAULT_WINDOW.getSeconds();
        for (int i = 0; i < lines.size(); i++) {
            LogInput.LogLine line = lines.get(i);
            SshdLogLine parsed = line.utf8() ? SshdLogParser.parse(line.text(), years[i], zone)
                    : new SshdLogLine.Malformed("not valid UTF-8");
            if (parsed instanceof SshdLogLine.Malformed m) {
                malformed++;
                if (samples.size() < SAMPLES) {
                    samples.add("line " + (i + 1) + ": " + m.reason());
                }
                continue;
            }
            if (parsed instanceof SshdLogLine.Other o) {
                if (o.sshd()) {
                    otherSshd++;
                }
                else {
                    otherPrograms++;
                }
                continue;
            }
            SshdLogLine.AuthFailure f = (SshdLogLine.AuthFailure) parsed;
            failureLines.merge(f.form(), 1, Integer::sum);
            failures += f.failures();
            long start = Math.floorDiv(f.timestamp().getEpochSecond(), window) * window;
            String key = BruteForceDetector.stateKey(f.srcIp(), start);
            events.computeIfAbsent(key, k -> new int[1])[0]++;
            identities.putIfAbsent(key, identity(f.srcIp(), Instant.ofEpochSecond(start)));
            String lineId = "line:" + (i + 1);
            for (Event failure : ingress.process(LogInput.lineEvent(line, i + 1, years[i]), context(lineId, state))) {
                for (Event alert : detector.process(failure, context(lineId + "/detect/0", state))) {
                    BruteForceAlert a = BruteForceAlert.fromEvent(alert);
                    alerts.put(identity(a.srcIp(), a.windowStart()), a.failures());
                }
            }
        }
        Map<String, Window> windows = new LinkedHashMap<>();
        events.forEach((key, count) -> windows.put(key,
                new Window(identities.get(key), count[0], windowState(state.get(key).orElseThrow(), key))));
        return new Reference(lines.size(), failureLines, failures, otherSshd, otherPrograms, malformed,
                List.copyOf(samples), alerts, windows);
    }

    /**
     * @param srcIp an alert's source
     * @param windowStart its window's start
     * @return {@code src_ip window_start}, the identity two runs are compared on (SPEC
     * section 7: never {@code failures}, which may depend on delivery order)
     */
    static String identity(String srcIp, Instant windowStart) {
        return srcIp + " " + windowStart;
    }

    /**
     * @param value a detector state value
     * @param key its key, for the error
     * @return the window count it holds
     * @throws IllegalStateException when it is not one
     */
    static BruteForceDetector.WindowState windowState(byte[] value, String key) {
        try {
            return JSON.readValue(value, BruteForceDetector.WindowState.class);
        }
        catch (IOException e) {
            throw new UncheckedIOException("state key " + key + " does not hold a window count", e);
        }
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

            @Override
            public void park(int index, Event element, String reason) {
                throw new IllegalStateException("the reference applies one line at a time and parks none: " + reason);
            }
        };
    }

    /**
     * @return what is wrong with a window's state, or {@code null} when it is the
     * reference's
     */
    static String compare(Window window, BruteForceDetector.WindowState got) {
        BruteForceDetector.WindowState want = window.state();
        if (got == null) {
            return "no state (" + window.events() + " failure events expected)";
        }
        if (want.alerted()) {
            return got.alerted() ? null : "not alerted (" + got.failures() + " failures counted)";
        }
        if (got.alerted()) {
            return "alerted, but the reference counts only " + want.failures() + " failures";
        }
        boolean once = new HashSet<>(got.seen()).size() == got.seen().size();
        if (got.failures() == want.failures() && got.seen().size() == want.seen().size() && once) {
            return null;
        }
        return got.failures() + " failures from " + got.seen().size() + " inputs"
                + (once ? "" : " (one counted " + "twice)") + ", expected " + want.failures() + " from "
                + want.seen().size();
    }

}
