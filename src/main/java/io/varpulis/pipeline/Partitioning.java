package io.varpulis.pipeline;

import io.varpulis.jetstream.DurableNames;

/**
 * How a partitioned pipeline's events are spread over its partitions (SPEC section 11):
 * an event goes to partition {@code FNV-1a-64(UTF-8 of fields[key]) mod partitions}, the
 * hash read as unsigned. Every event of one key value goes to one partition, so the key's
 * order and state are those of an unpartitioned pipeline. Pure, stable across versions:
 * an external publisher may compute it too.
 *
 * @param key the partition key, the event field whose text picks the partition
 * @param partitions how many partitions (1 or more)
 */
public record Partitioning(String key, int partitions) {

    /** The partition of an unpartitioned pipeline, edge or deployment. */
    public static final int NONE = -1;

    /**
     * @throws IllegalArgumentException when the key is missing or the count is below 1
     */
    public Partitioning {
        if (key == null || key.isBlank() || partitions < 1) {
            throw new IllegalArgumentException(
                    "a partitioning needs a partition key and at least 1 partition, got " + key + " and " + partitions);
        }
    }

    /**
     * @param keyValue the text of the key field
     * @param partitions the partition count
     * @return {@code FNV-1a-64(UTF-8 of keyValue) mod partitions}, between 0 and
     * {@code partitions - 1}
     */
    public static int partitionOf(String keyValue, int partitions) {
        return (int) Long.remainderUnsigned(DurableNames.fnv1a64(keyValue), partitions);
    }

    /**
     * @param event an event
     * @return its partition
     * @throws UnprocessableEventException when the event has no text in the key field
     * (absent, null, a number, an object): it can be placed in no partition, and is
     * parked, never dropped
     */
    public int partitionOf(Event event) {
        Object value = event.fields().get(key);
        if (!(value instanceof String text)) {
            throw new UnprocessableEventException("event " + event.eventType() + " has "
                    + (value == null ? "no field " + key
                            : "a non-text " + key + " (" + value.getClass().getSimpleName() + ")")
                    + ": its partition key " + key + " must be a JSON string, so it goes to no partition");
        }
        return partitionOf(text, partitions);
    }
}
