package io.varpulis.faults;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ClusterInfo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Issue 41's leader changes under load: every {@code every}, each stream that exists is
 * asked to step down ({@code $JS.API.STREAM.LEADER.STEPDOWN.<stream>}, no preferred
 * server: the election picks one, as after a server restart), on a connection of its own,
 * until closed. {@link #note()} says how many step-downs each stream took, how many were
 * refused, and the longest time without a leader after one (sampled every 50 ms).
 */
final class LeaderChurn implements AutoCloseable {

    private static final Duration ELECTION = Duration.ofSeconds(10);

    private final Connection connection;

    private final List<String> streams;

    private final Duration every;

    private final String label;

    private final long started = System.nanoTime();

    private final Map<String, Integer> stepDowns = new LinkedHashMap<>();

    private final Map<String, Long> longestElection = new LinkedHashMap<>();

    private final Map<String, Map<String, Integer>> leaders = new LinkedHashMap<>();

    private final List<String> refusals = new ArrayList<>();

    private final Thread thread;

    private volatile boolean closed;

    /**
     * @param urls the servers' URLs
     * @param streams the streams (a state bucket is its stream, {@code KV_<bucket>})
     * @param every how often each is stepped down
     * @param label the run's name, for what is printed
     */
    LeaderChurn(List<String> urls, List<String> streams, Duration every, String label)
            throws IOException, InterruptedException {
        this.connection = Nats.connect(new Options.Builder().servers(urls.toArray(String[]::new))
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(-1)
            .build());
        this.streams = List.copyOf(streams);
        this.every = every;
        this.label = label;
        streams.forEach(s -> {
            stepDowns.put(s, 0);
            longestElection.put(s, 0L);
            leaders.put(s, new LinkedHashMap<>());
        });
        this.thread = new Thread(this::churn, "leader-churn");
        thread.setDaemon(true);
        thread.start();
    }

    private void churn() {
        try {
            while (!closed) {
                long next = System.nanoTime() + every.toNanos();
                for (String stream : streams) {
                    if (!closed && leader(stream).isPresent()) {
                        stepDown(stream);
                    }
                }
                while (!closed && System.nanoTime() < next) {
                    Thread.sleep(100);
                }
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stepDown(String stream) throws InterruptedException {
        String before = leader(stream).orElse("none");
        String answer;
        try {
            Message reply = connection.request("$JS.API.STREAM.LEADER.STEPDOWN." + stream, new byte[0],
                    Duration.ofSeconds(5));
            answer = reply == null ? "no answer" : new String(reply.getData(), StandardCharsets.UTF_8);
        }
        catch (Exception e) {
            answer = e.toString();
        }
        long asked = System.nanoTime();
        String now = "none";
        while (System.nanoTime() - asked < ELECTION.toNanos() && (now = leader(stream).orElse("none")).equals("none")) {
            Thread.sleep(50);
        }
        long millis = (System.nanoTime() - asked) / 1_000_000;
        synchronized (this) {
            stepDowns.merge(stream, 1, Integer::sum);
            longestElection.merge(stream, millis, Math::max);
            leaders.get(stream).merge(now, 1, Integer::sum);
            if (!answer.contains("\"success\":true")) {
                refusals.add(stream + ": " + answer);
            }
        }
        System.out.printf(Locale.ROOT, "%s: %.1f s: %s stepped down (%s -> %s, %d ms)%n", label,
                (System.nanoTime() - started) / 1e9, stream, before, now, millis);
    }

    private Optional<String> leader(String stream) {
        try {
            ClusterInfo info = connection.jetStreamManagement().getStreamInfo(stream).getClusterInfo();
            return Optional.ofNullable(info == null ? null : info.getLeader());
        }
        catch (IOException | JetStreamApiException e) {
            return Optional.empty();
        }
    }

    /**
     * @return per stream: step-downs, the leaders they led to, the longest election;
     * refusals
     */
    synchronized String note() {
        return streams.stream()
            .map(s -> s + " stepped down " + stepDowns.get(s) + " times every " + every.toSeconds() + " s (leaders "
                    + leaders.get(s) + ", longest without a leader " + longestElection.get(s) + " ms)")
            .collect(Collectors.joining("; ")) + (refusals.isEmpty() ? "" : "; refused: " + refusals);
    }

    /**
     * @return step-downs of a stream so far
     */
    synchronized int stepDowns(String stream) {
        return stepDowns.getOrDefault(stream, 0);
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(30_000);
        connection.close();
    }

}
