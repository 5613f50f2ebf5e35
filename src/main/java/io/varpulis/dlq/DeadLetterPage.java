package io.varpulis.dlq;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * One page of parked events, newest first, JSON {@code {"events": [...], "depth": 3,
 * "next_before": 40, "page_bytes": 5120}}, plus {@code "note"} when the page ended at
 * {@code varpulis.dlq.max-page-bytes} before its {@code limit}.
 *
 * @param events the parked events, newest (highest sequence) first
 * @param depth how many events the DLQ holds for the unit filter (the whole DLQ without
 * one), time ignored
 * @param nextBefore pass it as {@code before} to get the next (older) page; {@code null}
 * on the last page
 * @param pageBytes the size of the events' JSON in this page, bytes (at most
 * {@code varpulis.dlq.max-page-bytes}, unless its one event is larger)
 * @param note how to get the rest when the byte budget ended the page, else {@code null}
 * (absent)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeadLetterPage(@JsonProperty("events") List<ParkedEvent> events, @JsonProperty("depth") long depth,
        @JsonProperty("next_before") Long nextBefore, @JsonProperty("page_bytes") long pageBytes,
        @JsonProperty("note") String note) {
}
