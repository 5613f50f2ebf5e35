package io.varpulis.dlq;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * What a replay did, JSON
 * {@code {"replayed": [{"sequence": 42, "unit": "detect", "original_subject": "...", "stream": "VARPULIS_ROUTING",
 * "stream_sequence": 917}], "failed": [{"sequence": 43, "unit": "detect", "error":
 * "..."}], "replayed_count": 1, "failed_count": 1, "more": false, "stopped": "..."}}.
 *
 * @param replayed events re-published (PubAck received) and then removed from the DLQ
 * @param failed events not replayed, or replayed but not removed; each says why and what
 * to do
 * @param more {@code true} when {@code varpulis.dlq.max-replay-batch} ended the replay
 * with events left: repeat it
 * @param stopped why the replay stopped before the end (a publish was not confirmed, so
 * later events were left parked in their order), or {@code null}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReplayReport(@JsonProperty("replayed") List<Replayed> replayed,
        @JsonProperty("failed") List<Failed> failed, @JsonProperty("more") boolean more,
        @JsonProperty("stopped") String stopped) {

    /**
     * @return how many events were replayed
     */
    @JsonProperty("replayed_count")
    public int replayedCount() {
        return replayed.size();
    }

    /**
     * @return how many events failed
     */
    @JsonProperty("failed_count")
    public int failedCount() {
        return failed.size();
    }

    /**
     * An event re-published to its original subject and removed from the DLQ.
     *
     * @param sequence its former DLQ sequence
     * @param unit its unit
     * @param originalSubject where it was re-published
     * @param stream the stream that stored the replay
     * @param streamSequence the replay's sequence in that stream
     */
    public record Replayed(@JsonProperty("sequence") long sequence, @JsonProperty("unit") String unit,
            @JsonProperty("original_subject") String originalSubject, @JsonProperty("stream") String stream,
            @JsonProperty("stream_sequence") long streamSequence) {
    }

    /**
     * An event the replay could not finish.
     *
     * @param sequence its DLQ sequence
     * @param unit its unit
     * @param error what failed and whether it is still parked
     */
    public record Failed(@JsonProperty("sequence") long sequence, @JsonProperty("unit") String unit,
            @JsonProperty("error") String error) {
    }
}
