package io.varpulis.bruteforce;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.UnprocessableEventException;

/**
 * The event types and field names of the {@code ssh-bruteforce} group (SPEC section 7),
 * in the order they flow: <pre>
 * _external --SshLogLine(s)--> ingress --SshAuthFailure(s)--> detect --BruteForceSuspected--> alerts
 * </pre> A type ending in {@code s} is the batch of the other
 * ({@link io.varpulis.pipeline.EventBatch}): one message carrying many events, applied
 * element by element. Also the field checks the processors share, so that every bad input
 * fails with the same kind of message.
 */
public final class SshEvents {

    /**
     * A raw sshd log line: {@code {"line": "Dec 10 06:55:48 LabSZ sshd[24200]: ...",
     * "line_number": 6, "year": 2026}} ({@code "charset": "ISO-8859-1"} when the line was
     * not valid UTF-8).
     */
    public static final String LOG_LINE = "SshLogLine";

    /**
     * A batch of {@link #LOG_LINE} events in one message
     * ({@link io.varpulis.pipeline.EventBatch}): {@code {"events": [{"event_type":
     * "SshLogLine", "fields": {"line": "...", "line_number": 6}}, ...]}}.
     */
    public static final String LOG_LINES = "SshLogLines";

    /**
     * One or more failed authentication attempts of one source, timestamped with the
     * line's time: {@code {"src_ip": "173.234.31.186", "user": "webmaster",
     * "invalid_user": true, "failures": 1, "line_number": 6}} ({@code user} is absent
     * when the line names none).
     */
    public static final String AUTH_FAILURE = "SshAuthFailure";

    /**
     * A batch of {@link #AUTH_FAILURE} events in one message, in line order
     * ({@link io.varpulis.pipeline.EventBatch}): {@code {"events": [{"event_type":
     * "SshAuthFailure", "timestamp": "...", "fields": {"src_ip": ...}}, ...]}}.
     */
    public static final String AUTH_FAILURES = "SshAuthFailures";

    /**
     * A brute-force alert, timestamped with its window start: {@code {"src_ip":
     * "5.36.59.76", "window_start": "2026-12-10T07:10:00Z", "failures": 6}}.
     */
    public static final String BRUTE_FORCE_SUSPECTED = "BruteForceSuspected";

    /** {@link #LOG_LINE}: the raw line (string). */
    public static final String LINE = "line";

    /**
     * {@link #LOG_LINE}, {@link #AUTH_FAILURE}: the 1-based line number in the input file
     * (number, optional).
     */
    public static final String LINE_NUMBER = "line_number";

    /**
     * {@link #LOG_LINE}: the year of the line's RFC 3164 timestamp (number, optional; the
     * processor's configured year otherwise). The reader of a file knows it: it moves to
     * the next year when the month goes back (Dec to Jan).
     */
    public static final String YEAR = "year";

    /**
     * {@link #LOG_LINE}: {@value #NOT_UTF8}, present only when the line's bytes were not
     * valid UTF-8 and {@code line} holds them decoded as ISO-8859-1 (every byte kept);
     * such a line is parked, never parsed (SPEC section 7).
     */
    public static final String CHARSET = "charset";

    /** The {@link #CHARSET} of a line that was not valid UTF-8. */
    public static final String NOT_UTF8 = "ISO-8859-1";

    /**
     * {@link #AUTH_FAILURE}, {@link #BRUTE_FORCE_SUSPECTED}: the source as logged, IPv4
     * or IPv6 text or a host name (string).
     */
    public static final String SRC_IP = "src_ip";

    /** {@link #AUTH_FAILURE}: the user name tried, as sshd printed it (string). */
    public static final String USER = "user";

    /** {@link #AUTH_FAILURE}: whether sshd said {@code invalid user} (boolean). */
    public static final String INVALID_USER = "invalid_user";

    /**
     * {@link #AUTH_FAILURE}: failed attempts this event stands for, 1 or N of
     * {@code message repeated N times} (positive integer);
     * {@link #BRUTE_FORCE_SUSPECTED}: the window's count when the threshold was crossed.
     */
    public static final String FAILURES = "failures";

    /** {@link #BRUTE_FORCE_SUSPECTED}: the window's start, RFC 3339 UTC (string). */
    public static final String WINDOW_START = "window_start";

    private SshEvents() {
    }

    /**
     * Checks an event's type.
     * @param event the event
     * @param expected the type the caller handles
     * @throws UnprocessableEventException when the type differs
     */
    static void requireType(Event event, String expected) {
        if (!expected.equals(event.eventType())) {
            throw new UnprocessableEventException("expected a " + expected + " event, got " + event.eventType());
        }
    }

    /**
     * Reads a required string field.
     * @param event the event
     * @param name the field
     * @return the field's value, never blank
     * @throws UnprocessableEventException when the field is absent, not a string, or
     * blank
     */
    static String requireText(Event event, String name) {
        if (!(event.fields().get(name) instanceof String text) || text.isBlank()) {
            throw new UnprocessableEventException(
                    event.eventType() + " event without a string field '" + name + "': " + event.fields());
        }
        return text;
    }

    /**
     * Reads a required positive whole-number field.
     * @param event the event
     * @param name the field
     * @return the value, at least 1
     * @throws UnprocessableEventException when the field is absent, not a whole number,
     * or outside 1..2^31-1
     */
    static int requirePositiveInt(Event event, String name) {
        Object value = event.fields().get(name);
        if (!(value instanceof Number number) || number.doubleValue() != number.longValue() || number.longValue() < 1
                || number.longValue() > Integer.MAX_VALUE) {
            throw new UnprocessableEventException(
                    event.eventType() + " event's field '" + name + "' must be a positive whole number, got " + value);
        }
        return number.intValue();
    }

}
