package io.varpulis.dlq;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Which parked events to list. Every part is optional.
 *
 * @param unit only this unit's events (the pipeline, or {@code coordinator:{id}});
 * matched through its DLQ subject {@code varpulis.dlq.{sanitised unit}}, so two units
 * that sanitise alike are listed together
 * @param since only events parked at or after this instant (the stream's store time,
 * which is {@code dead_at} plus the PubAck round trip)
 * @param until only events parked before this instant
 * @param before only events with a DLQ sequence below this one: the paging cursor
 * ({@code next_before})
 * @param limit page size; {@code null} for {@code varpulis.dlq.page-size}
 */
public record DeadLetterQuery(String unit, Instant since, Instant until, Long before, Integer limit) {

    /**
     * @return a query for the newest page of the whole DLQ
     */
    public static DeadLetterQuery all() {
        return new DeadLetterQuery(null, null, null, null, null);
    }

    /**
     * Builds a query from request parameters.
     * @param unit the unit, blank for all
     * @param since RFC 3339 instant ({@code 2026-11-30T12:00:00Z}) or unix seconds, blank
     * for none
     * @param until same format, blank for none
     * @param before the cursor, or {@code null}
     * @param limit the page size, or {@code null}
     * @return the query
     * @throws IllegalArgumentException naming the parameter when a time cannot be read
     */
    public static DeadLetterQuery of(String unit, String since, String until, Long before, Integer limit) {
        return new DeadLetterQuery(blankToNull(unit), instant("since", since), instant("until", until), before, limit);
    }

    /**
     * Reads a time parameter.
     * @param name the parameter, for the message
     * @param value RFC 3339 instant or unix seconds, or blank
     * @return the instant, or {@code null} when blank
     * @throws IllegalArgumentException naming the parameter and the accepted formats
     */
    static Instant instant(String name, String value) {
        String text = blankToNull(value);
        if (text == null) {
            return null;
        }
        try {
            return text.chars().allMatch(Character::isDigit) ? Instant.ofEpochSecond(Long.parseLong(text))
                    : Instant.parse(text);
        }
        catch (DateTimeParseException | NumberFormatException e) {
            throw new IllegalArgumentException(name + " '" + value + "' is not a time: give an RFC 3339 instant "
                    + "(2026-11-30T12:00:00Z) or unix seconds");
        }
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text.trim();
    }
}
