package io.varpulis.dlq;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * One page of parked events, newest first, JSON
 * {@code {"events": [...], "depth": 3, "next_before": 40}}.
 *
 * @param events     the parked events, newest (highest sequence) first
 * @param depth      how many events the DLQ holds for the unit filter (the whole DLQ without one), time ignored
 * @param nextBefore pass it as {@code before} to get the next (older) page; {@code null} on the last page
 */
public record DeadLetterPage(
        @JsonProperty("events") List<ParkedEvent> events,
        @JsonProperty("depth") long depth,
        @JsonProperty("next_before") Long nextBefore) {
}
