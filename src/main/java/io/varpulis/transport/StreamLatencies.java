package io.varpulis.transport;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * How long each stream this node publishes to took to answer its PubAcks, since the last
 * {@link #drain()}: the JetStream transport records every PubAck here, and
 * {@link SlowLeaders} compares the streams (SPEC section 20: a stream whose leader's disk
 * is slow answers in seconds while its peers answer in milliseconds). Keeps at most
 * {@value #MAX_SAMPLES} PubAcks per stream between two drains. Thread-safe.
 */
public final class StreamLatencies {

    /** Samples kept per stream between two drains: a median needs no more. */
    static final int MAX_SAMPLES = 1024;

    private final Map<String, long[]> samples = new HashMap<>();

    private final Map<String, Integer> counts = new HashMap<>();

    /**
     * @param stream the stream that answered
     * @param nanos how long its PubAck took
     */
    public synchronized void record(String stream, long nanos) {
        int count = counts.merge(stream, 1, Integer::sum);
        if (count <= MAX_SAMPLES) {
            samples.computeIfAbsent(stream, s -> new long[MAX_SAMPLES])[count - 1] = nanos;
        }
    }

    /**
     * Takes what was recorded since the last drain.
     * @param minSamples streams with fewer PubAcks are left out
     * @return stream to its median PubAck time, nanoseconds
     */
    public synchronized Map<String, Long> drain(int minSamples) {
        Map<String, Long> medians = new HashMap<>();
        counts.forEach((stream, count) -> {
            if (count >= minSamples) {
                long[] sorted = Arrays.copyOf(samples.get(stream), Math.min(count, MAX_SAMPLES));
                Arrays.sort(sorted);
                medians.put(stream, sorted[sorted.length / 2]);
            }
        });
        counts.clear();
        return medians;
    }

}
