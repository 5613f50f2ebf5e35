package io.varpulis.dlq;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What to replay, JSON body of the replay operations: exactly one of {@code {"sequence":
 * 42}}, {@code {"unit": "detect"}} or {@code {"all": true}}.
 *
 * @param sequence one parked event, by its DLQ sequence
 * @param unit every event parked for this unit (the pipeline, or
 * {@code coordinator:{id}})
 * @param all {@code true} for every parked event
 */
public record ReplayRequest(@JsonProperty("sequence") Long sequence, @JsonProperty("unit") String unit,
        @JsonProperty("all") Boolean all) {

    /**
     * @param sequence the DLQ sequence
     * @return a request for one event
     */
    public static ReplayRequest ofSequence(long sequence) {
        return new ReplayRequest(sequence, null, null);
    }

    /**
     * @param unit the unit
     * @return a request for one unit's events
     */
    public static ReplayRequest ofUnit(String unit) {
        return new ReplayRequest(null, unit, null);
    }

    /**
     * @return a request for every parked event
     */
    public static ReplayRequest ofAll() {
        return new ReplayRequest(null, null, true);
    }

    /**
     * @return this request
     * @throws IllegalArgumentException unless exactly one of sequence, unit and
     * {@code all=true} is given, or when the sequence is below 1
     */
    public ReplayRequest validate() {
        int given = (sequence != null ? 1 : 0) + (unit != null && !unit.isBlank() ? 1 : 0)
                + (Boolean.TRUE.equals(all) ? 1 : 0);
        if (given != 1) {
            throw new IllegalArgumentException("give exactly one of {\"sequence\": <DLQ sequence>}, "
                    + "{\"unit\": \"<pipeline>\"} or {\"all\": true}");
        }
        if (sequence != null) {
            DeadLetterConsole.requireSequence(sequence);
        }
        return this;
    }

    /**
     * @return what the request targets, for the audit line ({@code sequence 42},
     * {@code unit detect}, {@code all})
     */
    public String describe() {
        if (sequence != null) {
            return "sequence " + sequence;
        }
        return unit != null && !unit.isBlank() ? "unit " + unit : "all";
    }
}
