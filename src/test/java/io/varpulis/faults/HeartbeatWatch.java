package io.varpulis.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.varpulis.nats.Subjects;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * Which worker runs which pipeline, as the workers' own heartbeats say ({@code varpulis.cluster.heartbeat.{worker}},
 * {@code pipeline_metrics}), received from the moment it starts: how long a pipeline took to run elsewhere after a
 * fault, and for how long two workers both said they ran it.
 */
final class HeartbeatWatch implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One pipeline reported by one worker, at this JVM's receive time. */
    private record Seen(long nanos, String worker, String pipeline) {
    }

    private final Connection connection;
    private final Dispatcher dispatcher;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    /**
     * @param connection a connection to the servers, owned by the caller
     */
    HeartbeatWatch(Connection connection) {
        this.connection = connection;
        this.dispatcher = connection.createDispatcher(message -> {
            String worker = message.getSubject().substring(Subjects.HEARTBEAT_ROOT.length() + 1);
            long now = System.nanoTime();
            try {
                for (JsonNode metric : JSON.readTree(message.getData()).path("pipeline_metrics")) {
                    String pipeline = metric.path("pipeline_name").asText()
                            + (metric.has("partition") ? "/" + metric.path("partition").asInt() : "");
                    seen.add(new Seen(now, worker, pipeline));
                }
            } catch (Exception notAHeartbeat) {
                // Not JSON: nothing to record.
            }
        });
        dispatcher.subscribe(Subjects.HEARTBEAT_ROOT + ".>");
    }

    /**
     * @param pipeline a pipeline ({@code alerts}, {@code detect})
     * @param from     the worker it ran on
     * @param since    {@link System#nanoTime()} of the fault
     * @return ms from {@code since} until another worker reported it, or -1 when none has yet
     */
    long movedAfter(String pipeline, String from, long since) {
        return seen.stream().filter(s -> s.nanos() >= since && s.pipeline().equals(pipeline)
                        && !s.worker().equals(from)).mapToLong(s -> (s.nanos() - since) / 1_000_000).min()
                .orElse(-1);
    }

    /**
     * @param pipeline a pipeline
     * @param since    {@link System#nanoTime()} of the fault
     * @return seconds since then (whole seconds counted from {@code since}) in which two workers or more reported it
     */
    long secondsOnTwoWorkers(String pipeline, long since) {
        Map<Long, Set<String>> workersBySecond = seen.stream()
                .filter(s -> s.nanos() >= since && s.pipeline().equals(pipeline))
                .collect(Collectors.groupingBy(s -> (s.nanos() - since) / 1_000_000_000L,
                        Collectors.mapping(Seen::worker, Collectors.toCollection(HashSet::new))));
        return workersBySecond.values().stream().filter(w -> w.size() > 1).count();
    }

    @Override
    public void close() {
        connection.closeDispatcher(dispatcher);
    }
}
