package io.varpulis.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.varpulis.nats.Subjects;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * Which worker runs which pipeline, as the workers' own heartbeats say
 * ({@code varpulis.cluster.heartbeat.{worker}}, {@code pipeline_metrics}), received from
 * the moment it starts: how long a pipeline took to run elsewhere after a fault, and for
 * how long two workers both said they ran it.
 */
final class HeartbeatWatch implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One pipeline reported by one worker, at this JVM's receive time. */
    private record Seen(long nanos, String worker, String pipeline) {
    }

    private final Connection connection;

    private final Dispatcher dispatcher;

    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    /** Every heartbeat's receive time by worker, pipelines or not. */
    private final Map<String, List<Long>> beats = new ConcurrentHashMap<>();

    private final long started = System.nanoTime();

    /**
     * @param connection a connection to the servers, owned by the caller
     */
    HeartbeatWatch(Connection connection) {
        this.connection = connection;
        this.dispatcher = connection.createDispatcher(message -> {
            String worker = message.getSubject().substring(Subjects.HEARTBEAT_ROOT.length() + 1);
            long now = System.nanoTime();
            beats.computeIfAbsent(worker, w -> new CopyOnWriteArrayList<>()).add(now);
            try {
                for (JsonNode metric : JSON.readTree(message.getData()).path("pipeline_metrics")) {
                    String pipeline = metric.path("pipeline_name").asText()
                            + (metric.has("partition") ? "/" + metric.path("partition").asInt() : "");
                    seen.add(new Seen(now, worker, pipeline));
                }
            }
            catch (Exception notAHeartbeat) {
                // Not JSON: nothing to record.
            }
        });
        dispatcher.subscribe(Subjects.HEARTBEAT_ROOT + ".>");
    }

    /**
     * @param pipeline a pipeline ({@code alerts}, {@code detect})
     * @param from the worker it ran on
     * @param since {@link System#nanoTime()} of the fault
     * @return ms from {@code since} until another worker reported it, or -1 when none has
     * yet
     */
    long movedAfter(String pipeline, String from, long since) {
        return seen.stream()
            .filter(s -> s.nanos() >= since && s.pipeline().equals(pipeline) && !s.worker().equals(from))
            .mapToLong(s -> (s.nanos() - since) / 1_000_000)
            .min()
            .orElse(-1);
    }

    /**
     * @param pipeline a pipeline
     * @param since {@link System#nanoTime()} of the fault
     * @return seconds since then (whole seconds counted from {@code since}) in which two
     * workers or more reported it
     */
    long secondsOnTwoWorkers(String pipeline, long since) {
        Map<Long, Set<String>> workersBySecond = seen.stream()
            .filter(s -> s.nanos() >= since && s.pipeline().equals(pipeline))
            .collect(Collectors.groupingBy(s -> (s.nanos() - since) / 1_000_000_000L,
                    Collectors.mapping(Seen::worker, Collectors.toCollection(HashSet::new))));
        return workersBySecond.values().stream().filter(w -> w.size() > 1).count();
    }

    /**
     * @param overMillis the gaps to list
     * @return per worker (in name order): heartbeats received, the longest gap between
     * two, and every gap longer than {@code overMillis} with when it began (seconds since
     * this watch started)
     */
    String gaps(long overMillis) {
        return new TreeMap<>(beats).entrySet().stream().map(e -> {
            List<Long> times = e.getValue();
            long longest = 0;
            List<String> over = new ArrayList<>();
            for (int i = 1; i < times.size(); i++) {
                long gap = (times.get(i) - times.get(i - 1)) / 1_000_000;
                longest = Math.max(longest, gap);
                if (gap > overMillis) {
                    over.add(gap + " ms at " + (times.get(i - 1) - started) / 1_000_000_000L + " s");
                }
            }
            return e.getKey() + ": " + times.size() + " heartbeats, longest gap " + longest + " ms"
                    + (over.isEmpty() ? "" : ", over " + overMillis + " ms: " + String.join(", ", over));
        }).collect(Collectors.joining("; "));
    }

    /**
     * @return the longest gap between two heartbeats of one worker, ms
     */
    long longestGap() {
        long longest = 0;
        for (List<Long> times : beats.values()) {
            for (int i = 1; i < times.size(); i++) {
                longest = Math.max(longest, (times.get(i) - times.get(i - 1)) / 1_000_000);
            }
        }
        return longest;
    }

    /**
     * @param pipeline a pipeline
     * @return from its first report on: the longest time no worker reported it (ms) and
     * when that began (seconds since this watch started), the workers that reported it,
     * in order of first report
     */
    String absence(String pipeline) {
        List<Seen> reports = seen.stream().filter(s -> s.pipeline().equals(pipeline)).toList();
        if (reports.isEmpty()) {
            return pipeline + " never reported";
        }
        long longest = 0;
        long at = 0;
        for (int i = 1; i < reports.size(); i++) {
            long gap = (reports.get(i).nanos() - reports.get(i - 1).nanos()) / 1_000_000;
            if (gap > longest) {
                longest = gap;
                at = (reports.get(i - 1).nanos() - started) / 1_000_000_000L;
            }
        }
        return pipeline + " reported by " + reports.stream().map(Seen::worker).distinct().toList()
                + ", longest without a report " + longest + " ms (from " + at + " s)";
    }

    @Override
    public void close() {
        connection.closeDispatcher(dispatcher);
    }

}
