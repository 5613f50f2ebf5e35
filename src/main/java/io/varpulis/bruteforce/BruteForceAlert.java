package io.varpulis.bruteforce;

import io.varpulis.pipeline.Event;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@value SshEvents#BRUTE_FORCE_SUSPECTED} alert, identified by (source IP, window
 * start): SPEC section 7 allows one per pair.
 *
 * @param srcIp the source IP address
 * @param windowStart the start of the tumbling window, whole seconds since the epoch
 * @param failures the window's failure count when the threshold was crossed, at least 1
 */
public record BruteForceAlert(String srcIp, Instant windowStart, int failures) {

    /**
     * Reads an alert event.
     * @param event a {@value SshEvents#BRUTE_FORCE_SUSPECTED} event {@code {"src_ip":
     * "...", "window_start": "<RFC 3339>", "failures": N}}
     * @return the alert
     * @throws IllegalArgumentException when the event is of another type or a field is
     * missing or invalid
     */
    public static BruteForceAlert fromEvent(Event event) {
        SshEvents.requireType(event, SshEvents.BRUTE_FORCE_SUSPECTED);
        String windowStart = SshEvents.requireText(event, SshEvents.WINDOW_START);
        try {
            return new BruteForceAlert(SshEvents.requireText(event, SshEvents.SRC_IP), Instant.parse(windowStart),
                    SshEvents.requirePositiveInt(event, SshEvents.FAILURES));
        }
        catch (DateTimeParseException e) {
            throw new IllegalArgumentException("window_start '" + windowStart + "' is not an RFC 3339 UTC time", e);
        }
    }

    /**
     * The alert's identity, {@code alert:<src_ip>:<window start epoch seconds>}, e.g.
     * {@code alert:5.36.59.76:1796886600}: the same on every re-emission, so it serves as
     * the {@code Nats-Msg-Id} that lets JetStream drop a duplicate, and as the sink's
     * de-duplication key.
     * @return the id
     */
    public String id() {
        return "alert:" + srcIp + ":" + windowStart.getEpochSecond();
    }

    /**
     * @return the alert's fields in the order of the JSON line, {@code {"src_ip",
     * "window_start", "failures"}}, with {@code window_start} as RFC 3339 UTC text
     * ({@code 2026-12-10T07:10:00Z})
     */
    public Map<String, Object> fields() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put(SshEvents.SRC_IP, srcIp);
        fields.put(SshEvents.WINDOW_START, windowStart.toString());
        fields.put(SshEvents.FAILURES, failures);
        return fields;
    }

    /**
     * @return the alert as a {@value SshEvents#BRUTE_FORCE_SUSPECTED} event timestamped
     * with its window start
     */
    public Event toEvent() {
        return new Event(SshEvents.BRUTE_FORCE_SUSPECTED, windowStart, fields());
    }
}
