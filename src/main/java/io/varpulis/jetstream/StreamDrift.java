package io.varpulis.jetstream;

import io.nats.client.api.StreamConfiguration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * How an existing stream's settings differ from what the application declares. The stream
 * is used as it is (never updated, ADR-007); the difference is logged once at WARN and
 * shown in the {@code jetstream} health details.
 *
 * @param stream the stream name
 * @param differences one entry per setting that differs
 */
public record StreamDrift(String stream, List<Difference> differences) {

    /**
     * Copies the list.
     */
    public StreamDrift {
        differences = List.copyOf(differences);
    }

    /**
     * One setting that differs.
     *
     * @param setting the JetStream name of the setting (max_age, max_bytes, subjects,
     * ...)
     * @param declared what the application declares
     * @param actual what the server has
     */
    public record Difference(String setting, String declared, String actual) {
    }

    /**
     * @return {@code true} when the stream matches its declaration
     */
    public boolean isEmpty() {
        return differences.isEmpty();
    }

    /**
     * @return the differences as {@code max_age=2h (expected 1h), ...}
     */
    public String describe() {
        return differences.stream()
            .map(d -> d.setting() + "=" + d.actual() + " (expected " + d.declared() + ")")
            .collect(Collectors.joining(", "));
    }

    /**
     * Compares the settings ADR-007 cares about. A duplicate window the declaration
     * leaves unset is not compared (the server fills in its default).
     * @param declared what the application declares
     * @param actual what the server has
     * @return the drift, empty when they match
     */
    public static StreamDrift between(StreamConfiguration declared, StreamConfiguration actual) {
        List<Difference> out = new ArrayList<>();
        compare(out, "subjects", new HashSet<>(declared.getSubjects()), new HashSet<>(actual.getSubjects()),
                String::valueOf);
        compare(out, "retention", declared.getRetentionPolicy(), actual.getRetentionPolicy(), String::valueOf);
        compare(out, "discard", declared.getDiscardPolicy(), actual.getDiscardPolicy(), String::valueOf);
        compare(out, "storage", declared.getStorageType(), actual.getStorageType(), String::valueOf);
        compare(out, "max_age", declared.getMaxAge(), actual.getMaxAge(), StreamDrift::duration);
        compare(out, "max_bytes", declared.getMaxBytes(), actual.getMaxBytes(), StreamDrift::limit);
        compare(out, "max_msgs", declared.getMaxMsgs(), actual.getMaxMsgs(), StreamDrift::limit);
        compare(out, "max_msgs_per_subject", declared.getMaxMsgsPerSubject(), actual.getMaxMsgsPerSubject(),
                StreamDrift::limit);
        compare(out, "replicas", declared.getReplicas(), actual.getReplicas(), String::valueOf);
        if (declared.getDuplicateWindow() != null && !declared.getDuplicateWindow().isZero()) {
            compare(out, "duplicate_window", declared.getDuplicateWindow(), actual.getDuplicateWindow(),
                    StreamDrift::duration);
        }
        return new StreamDrift(declared.getName(), out);
    }

    private static <T> void compare(List<Difference> out, String setting, T declared, T actual,
            java.util.function.Function<T, String> format) {
        if (!Objects.equals(declared, actual)) {
            out.add(new Difference(setting, format.apply(declared), format.apply(actual)));
        }
    }

    /**
     * @param d a duration, zero or null meaning unlimited
     * @return {@code 1h}, {@code 2m}, {@code 30s}, {@code 1500ms} or {@code unlimited}
     */
    static String duration(Duration d) {
        if (d == null || d.isZero()) {
            return "unlimited";
        }
        if (d.toMillis() % 3_600_000 == 0) {
            return d.toHours() + "h";
        }
        if (d.toMillis() % 60_000 == 0) {
            return d.toMinutes() + "m";
        }
        if (d.toMillis() % 1000 == 0) {
            return d.toSeconds() + "s";
        }
        return d.toMillis() + "ms";
    }

    private static String limit(long value) {
        return value < 0 ? "unlimited" : Long.toString(value);
    }
}
