package io.varpulis.demo;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.ProcessingContext;
import io.varpulis.pipeline.UnprocessableEventException;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code ingress} pipeline of {@code ssh-bruteforce}: turns raw sshd lines into failures (SPEC section 7, read
 * by {@link SshdLogParser}).
 * <p>In: {@value SshEvents#LOG_LINE} {@code {"line": "...", "line_number": 6, "year": 2026}}. Out: nothing for a
 * line that is not a failure, or one {@value SshEvents#AUTH_FAILURE}
 * {@code {"src_ip", "user", "invalid_user", "failures", "line_number"}} timestamped with the line's time.
 * Stateless and thread-safe.
 */
public final class SshLogIngressProcessor implements EventProcessor {

    private final int year;
    private final ZoneId zone;

    /**
     * A parser of RFC 3164 timestamps in UTC.
     *
     * @param year the year of RFC 3164 timestamps, which those lines do not carry
     */
    public SshLogIngressProcessor(int year) {
        this(year, ZoneOffset.UTC);
    }

    /**
     * @param year the year of RFC 3164 timestamps, used when the event has no {@code year}
     * @param zone the zone of RFC 3164 timestamps (RFC 3339 lines carry their offset)
     */
    public SshLogIngressProcessor(int year, ZoneId zone) {
        this.year = year;
        this.zone = zone;
    }

    /**
     * Parses one line.
     *
     * @return no event, or one {@value SshEvents#AUTH_FAILURE}; {@code line_number} is copied when the input has it
     * @throws UnprocessableEventException when the event is not a {@value SshEvents#LOG_LINE}, has no string
     *                                     {@code line}, the line was not valid UTF-8, or it is malformed (no valid
     *                                     header, or a failure from something that is neither an address nor a
     *                                     host name). The route ingress then parks it in the DLQ with the line in
     *                                     the envelope, rather than dropping a line that might have hidden a
     *                                     failure.
     */
    @Override
    public List<Event> process(Event event, ProcessingContext context) {
        SshEvents.requireType(event, SshEvents.LOG_LINE);
        String line = SshEvents.requireText(event, SshEvents.LINE);
        Object lineNumber = event.fields().get(SshEvents.LINE_NUMBER);
        if (event.fields().get(SshEvents.CHARSET) != null) {
            throw new UnprocessableEventException("sshd line " + lineNumber + " is not valid UTF-8 (shown decoded as "
                    + event.fields().get(SshEvents.CHARSET) + "): " + line);
        }
        Object lineYear = event.fields().get(SshEvents.YEAR);
        SshdLogLine parsed = SshdLogParser.parse(line, lineYear instanceof Number n ? n.intValue() : year, zone);
        if (parsed instanceof SshdLogLine.Malformed malformed) {
            throw new UnprocessableEventException("malformed sshd line " + lineNumber + ": " + malformed.reason());
        }
        if (!(parsed instanceof SshdLogLine.AuthFailure failure)) {
            return List.of();
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put(SshEvents.SRC_IP, failure.srcIp());
        if (failure.user() != null) {
            fields.put(SshEvents.USER, failure.user());
        }
        fields.put(SshEvents.INVALID_USER, failure.invalidUser());
        fields.put(SshEvents.FAILURES, failure.failures());
        if (lineNumber != null) {
            fields.put(SshEvents.LINE_NUMBER, lineNumber);
        }
        return List.of(new Event(SshEvents.AUTH_FAILURE, failure.timestamp(), fields));
    }
}
