package io.varpulis.bruteforce;

import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.ProcessingContext;
import io.varpulis.pipeline.UnprocessableEventException;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code ingress} pipeline of {@code ssh-bruteforce}: turns raw sshd lines into
 * failures (SPEC section 7, read by {@link SshdLogParser}).
 * <p>
 * In: {@value SshEvents#LOG_LINE} {@code {"line": "...", "line_number": 6, "year":
 * 2026}}, or a batch of them, {@value SshEvents#LOG_LINES} ({@link EventBatch}). Out, for
 * one line: nothing for a line that is not a failure, or one
 * {@value SshEvents#AUTH_FAILURE} {@code {"src_ip", "user", "invalid_user", "failures",
 * "line_number"}} timestamped with the line's time. For a batch: the failures of its
 * lines in line order, in one {@value SshEvents#AUTH_FAILURES} batch (nothing when it has
 * none), or one event each when the processor emits {@link Emit#EVENTS} (for a detector
 * partitioned by source, which needs one event per message); each line of the batch that
 * cannot be read is parked on its own ({@link ProcessingContext#park}) with the reason a
 * single line would have been parked for. Each output's key
 * ({@link ProcessingContext#keyed}) is what it was read from: {@code failure} for a
 * line's, {@code failures} for a batch's, {@code line:{index}} for one event per line of
 * a batch. Stateless and thread-safe.
 */
public final class SshLogIngressProcessor implements EventProcessor {

    /** What a batch of lines gives. */
    public enum Emit {

        /**
         * The batch's failures in one {@value SshEvents#AUTH_FAILURES} batch (the
         * default).
         */
        BATCHES,
        /** Each failure as its own {@value SshEvents#AUTH_FAILURE} event. */
        EVENTS

    }

    private final int year;

    private final ZoneId zone;

    private final Emit emit;

    /**
     * A parser of RFC 3164 timestamps in UTC.
     * @param year the year of RFC 3164 timestamps, which those lines do not carry
     */
    public SshLogIngressProcessor(int year) {
        this(year, ZoneOffset.UTC, Emit.BATCHES);
    }

    /**
     * A parser whose batches of lines give batches of failures.
     * @param year the year of RFC 3164 timestamps, used when the event has no
     * {@code year}
     * @param zone the zone of RFC 3164 timestamps (RFC 3339 lines carry their offset)
     */
    public SshLogIngressProcessor(int year, ZoneId zone) {
        this(year, zone, Emit.BATCHES);
    }

    /**
     * @param year the year of RFC 3164 timestamps, used when the event has no
     * {@code year}
     * @param zone the zone of RFC 3164 timestamps (RFC 3339 lines carry their offset)
     * @param emit what a batch of lines gives
     */
    public SshLogIngressProcessor(int year, ZoneId zone, Emit emit) {
        this.year = year;
        this.zone = zone;
        this.emit = emit;
    }

    /**
     * Parses one line, or each line of a batch.
     * @return for one line: no event, or one {@value SshEvents#AUTH_FAILURE};
     * {@code line_number} is copied when the input has it. For a batch: the failures,
     * batched or not ({@link Emit})
     * @throws UnprocessableEventException when the event is neither a
     * {@value SshEvents#LOG_LINE} nor a {@value SshEvents#LOG_LINES} batch, or is one
     * line that has no string {@code line}, was not valid UTF-8, or is malformed (no
     * valid header, or a failure from something that is neither an address nor a host
     * name). The route ingress then parks it in the DLQ with the line in the envelope,
     * rather than dropping a line that might have hidden a failure. In a batch, such a
     * line is parked alone and the others are applied.
     */
    @Override
    public List<Event> process(Event event, ProcessingContext context) {
        if (!SshEvents.LOG_LINES.equals(event.eventType())) {
            SshEvents.requireType(event, SshEvents.LOG_LINE);
            return line(event).map(failure -> List.of(context.keyed(failure, "failure"))).orElse(List.of());
        }
        if (!EventBatch.isBatch(event)) {
            throw new UnprocessableEventException(
                    SshEvents.LOG_LINES + " event without a list field '" + EventBatch.EVENTS + "'");
        }
        List<Event> failures = new ArrayList<>();
        for (EventBatch.Element element : EventBatch.elements(event)) {
            if (element.error() != null) {
                context.park(element.index(), EventBatch.alone(SshEvents.LOG_LINES, element), element.error());
                continue;
            }
            try {
                SshEvents.requireType(element.event(), SshEvents.LOG_LINE);
                line(element.event()).ifPresent(failure -> failures
                    .add(emit == Emit.EVENTS ? context.keyed(failure, "line:" + element.index()) : failure));
            }
            catch (UnprocessableEventException e) {
                context.park(element.index(), element.event(), e.getMessage());
            }
        }
        if (failures.isEmpty() || emit == Emit.EVENTS) {
            return failures;
        }
        return List.of(context.keyed(EventBatch.of(SshEvents.AUTH_FAILURES, failures), "failures"));
    }

    /** One {@value SshEvents#LOG_LINE}: its failure, if it is one. */
    private Optional<Event> line(Event event) {
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
            return Optional.empty();
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
        return Optional.of(new Event(SshEvents.AUTH_FAILURE, failure.timestamp(), fields));
    }

}
