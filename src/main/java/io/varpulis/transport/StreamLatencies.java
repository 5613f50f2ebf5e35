package io.varpulis.transport;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@link SlowLeaders} reads of this node's use of the servers, recorded by the
 * JetStream transport: how long each stream it publishes to took to answer its PubAcks
 * since the last {@link #drain(int)} (SPEC section 20: a stream whose leader's disk is
 * slow answers in seconds while its peers answer in milliseconds), and the durable
 * consumers it pulls from (whose leaders may sit on that server too). Keeps at most
 * {@value #MAX_SAMPLES} PubAcks per stream between two drains. Thread-safe.
 */
public final class StreamLatencies {

    /** Samples kept per stream between two drains: a median needs no more. */
    static final int MAX_SAMPLES = 1024;

    private final Map<String, long[]> samples = new HashMap<>();

    private final Map<String, Integer> counts = new HashMap<>();

    private final Set<List<String>> consumers = ConcurrentHashMap.newKeySet();

    /**
     * @param stream a stream
     * @param durable a durable consumer of it this node pulls from from now on
     */
    public void consuming(String stream, String durable) {
        consumers.add(List.of(stream, durable));
    }

    /**
     * @param stream a stream
     * @param durable a durable consumer of it this node no longer pulls from
     */
    public void stopped(String stream, String durable) {
        consumers.remove(List.of(stream, durable));
    }

    /**
     * @return the durable consumers this node pulls from, each {@code [stream, durable]}
     */
    public Set<List<String>> consumers() {
        return Set.copyOf(consumers);
    }

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
