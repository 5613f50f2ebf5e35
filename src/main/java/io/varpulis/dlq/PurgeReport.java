package io.varpulis.dlq;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a purge deleted, JSON {@code {"target": "unit detect", "purged": 3}}.
 *
 * @param target what was purged: {@code sequence 42} or {@code unit detect}
 * @param purged how many parked events were deleted
 */
public record PurgeReport(@JsonProperty("target") String target, @JsonProperty("purged") long purged) {
}
