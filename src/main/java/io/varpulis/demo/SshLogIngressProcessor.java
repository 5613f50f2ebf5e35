package io.varpulis.demo;

import io.varpulis.pipeline.UnprocessableEventException;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.ProcessingContext;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code ingress} pipeline of {@code ssh-bruteforce}: turns raw sshd lines into failures (SPEC section 7).
 * <p>In: {@value SshEvents#LOG_LINE} {@code {"line": "...", "line_number": 6}}. Out: nothing for a line that is not
 * a failed password, or one {@value SshEvents#AUTH_FAILURE}
 * {@code {"src_ip", "user", "invalid_user", "failures", "line_number"}} timestamped with the syslog time (UTC).
 * Stateless and thread-safe.
 */
public final class SshLogIngressProcessor implements EventProcessor {

    private final int year;

    /**
     * @param year the year of the syslog timestamps, which sshd lines do not carry
     */
    public SshLogIngressProcessor(int year) {
        this.year = year;
    }

    /**
     * Parses one line.
     *
     * @return no event, or one {@value SshEvents#AUTH_FAILURE}; {@code line_number} is copied when the input has it
     * @throws IllegalArgumentException when the event is not a {@value SshEvents#LOG_LINE}, has no string
     *                                  {@code line}, or the line is malformed (no valid syslog timestamp, or a failure
     *                                  from something that is not an IP address). The route ingress then parks it
     *                                  in the DLQ with the line in the envelope, rather than dropping a line that
     *                                  might have hidden a failure.
     */
    @Override
    public List<Event> process(Event event, ProcessingContext context) {
        SshEvents.requireType(event, SshEvents.LOG_LINE);
        String line = SshEvents.requireText(event, SshEvents.LINE);
        Object lineNumber = event.fields().get(SshEvents.LINE_NUMBER);
        Object lineYear = event.fields().get(SshEvents.YEAR);
        SshdLogLine parsed = SshdLogParser.parse(line, lineYear instanceof Number n ? n.intValue() : year);
        if (parsed instanceof SshdLogLine.Malformed malformed) {
            throw new UnprocessableEventException("malformed sshd line " + lineNumber + ": " + malformed.reason());
        }
        if (!(parsed instanceof SshdLogLine.AuthFailure failure)) {
            return List.of();
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put(SshEvents.SRC_IP, failure.srcIp());
        fields.put(SshEvents.USER, failure.user());
        fields.put(SshEvents.INVALID_USER, failure.invalidUser());
        fields.put(SshEvents.FAILURES, failure.failures());
        if (lineNumber != null) {
            fields.put(SshEvents.LINE_NUMBER, lineNumber);
        }
        return List.of(new Event(SshEvents.AUTH_FAILURE, failure.timestamp(), fields));
    }
}
