package io.varpulis.faults;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ClusterInfo;
import io.nats.client.api.Replica;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Keeps streams led by one server for a whole run: as soon as a stream exists (sampled
 * every 100 ms until every stream is held, then every second, on a connection of its
 * own), its leader is asked to step down in favour of the target
 * ({@code $JS.API.STREAM.LEADER.STEPDOWN.<stream>},
 * {@code {"placement":{"preferred":"nX"}}}), and again whenever the leadership leaves it,
 * at most {@code maxStepDowns} times per stream; but only while the target's replica is
 * current (lag 0): a step-down toward a replica catching up fails and moves the
 * leadership elsewhere, and repeated ones kept a slow server behind for good (a first
 * slow-disk run: "Catchup ... stalled" on n2, 10 step-downs, n2 never led). Each change
 * is printed; {@link #note()} says when each stream was first held, the step-downs it
 * took and who was sampled leading it.
 */
final class LeaderHold implements AutoCloseable {

    private static final Duration ELECTION = Duration.ofSeconds(10);

    private final Connection connection;

    private final int target;

    private final String targetName;

    private final List<String> streams;

    private final int maxStepDowns;

    private final String label;

    private final long started = System.nanoTime();

    private final Map<String, Map<String, Long>> samples = new LinkedHashMap<>();

    /** Leaders sampled once the target first led the stream. */
    private final Map<String, Map<String, Long>> afterHeld = new LinkedHashMap<>();

    private final Map<String, Integer> stepDowns = new LinkedHashMap<>();

    private final Map<String, Long> firstHeld = new LinkedHashMap<>();

    private final Map<String, String> last = new LinkedHashMap<>();

    private final Map<String, String> waiting = new LinkedHashMap<>();

    private final List<String> refusals = new ArrayList<>();

    private final Thread thread;

    private volatile boolean closed;

    /**
     * @param urls the servers' URLs, in name order
     * @param target the server that must lead them, 0-based
     * @param streams the streams (a state bucket is its stream, {@code KV_<bucket>})
     * @param maxStepDowns step-downs per stream at most
     * @param label the run's name, for what is printed
     */
    LeaderHold(List<String> urls, int target, List<String> streams, int maxStepDowns, String label)
            throws IOException, InterruptedException {
        List<String> others = new ArrayList<>(urls);
        others.add(others.remove(target)); // asked through another server first: the
                                           // target may be the slow one
        this.connection = Nats.connect(new Options.Builder().servers(others.toArray(String[]::new))
            .noRandomize()
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(-1)
            .build());
        this.target = target;
        this.targetName = LoopbackCluster.name(target);
        this.streams = streams;
        this.maxStepDowns = maxStepDowns;
        this.label = label;
        streams.forEach(s -> {
            samples.put(s, new TreeMap<>());
            afterHeld.put(s, new TreeMap<>());
            stepDowns.put(s, 0);
        });
        this.thread = new Thread(this::hold, "leader-hold");
        thread.setDaemon(true);
        thread.start();
    }

    private void hold() {
        try {
            while (!closed) {
                for (String stream : streams) {
                    sample(stream);
                }
                Thread.sleep(allHeld() ? 1000 : 100);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void sample(String stream) throws InterruptedException {
        Optional<ClusterInfo> info = info(stream);
        if (info.isEmpty() && !last.containsKey(stream)) {
            return; // Not created yet.
        }
        String leader = info.map(ClusterInfo::getLeader).orElse("none");
        String before = last.get(stream);
        synchronized (this) {
            samples.get(stream).merge(leader, 1L, Long::sum);
            if (leader.equals(targetName)) {
                firstHeld.putIfAbsent(stream, System.nanoTime());
            }
            if (firstHeld.containsKey(stream)) {
                afterHeld.get(stream).merge(leader, 1L, Long::sum);
            }
            last.put(stream, leader);
        }
        if (!leader.equals(before)) {
            print(stream + " led by " + leader);
        }
        if (info.isEmpty() || leader.equals("none") || leader.equals(targetName) || closed
                || stepDowns.get(stream) >= maxStepDowns) {
            return;
        }
        Optional<Replica> replica = info.get().getReplicas() == null ? Optional.empty()
                : info.get().getReplicas().stream().filter(r -> r.getName().equals(targetName)).findFirst();
        String behind = replica.isEmpty() ? "not a replica" : replica.get().isCurrent() && replica.get().getLag() == 0
                ? null : "replica not current, lag " + replica.get().getLag();
        if (behind != null) {
            if (!behind.equals(waiting.put(stream, behind))) {
                print(stream + ": " + targetName + " " + behind + "; not moved yet");
            }
            return;
        }
        waiting.remove(stream);
        stepDown(stream);
    }

    private void stepDown(String stream) throws InterruptedException {
        synchronized (this) {
            stepDowns.merge(stream, 1, Integer::sum);
        }
        String answer;
        try {
            Message reply = connection.request("$JS.API.STREAM.LEADER.STEPDOWN." + stream,
                    ("{\"placement\":{\"preferred\":\"" + targetName + "\"}}").getBytes(StandardCharsets.UTF_8),
                    Duration.ofSeconds(5));
            answer = reply == null ? "no answer" : new String(reply.getData(), StandardCharsets.UTF_8);
        }
        catch (Exception e) {
            answer = e.toString();
        }
        if (!answer.contains("\"success\":true")) {
            synchronized (this) {
                refusals.add(stream + ": " + answer);
            }
        }
        long deadline = System.nanoTime() + ELECTION.toNanos();
        String now = "none";
        while (System.nanoTime() < deadline
                && (now = info(stream).map(ClusterInfo::getLeader).orElse("none")).equals("none")) {
            Thread.sleep(100);
        }
        print(stream + " step-down " + stepDowns.get(stream) + " toward " + targetName + ": " + answer + "; leader now "
                + now);
    }

    private Optional<ClusterInfo> info(String stream) {
        try {
            return Optional.ofNullable(connection.jetStreamManagement().getStreamInfo(stream).getClusterInfo());
        }
        catch (IOException | JetStreamApiException e) {
            return Optional.empty();
        }
    }

    private void print(String what) {
        System.out.printf(Locale.ROOT, "%s: %.1f s: %s%n", label, (System.nanoTime() - started) / 1e9, what);
    }

    private synchronized boolean allHeld() {
        return firstHeld.size() == streams.size();
    }

    /**
     * @param stream a stream
     * @return whether the target led it and, from then on, was named its leader in every
     * sample that named one (an election, or the bucket deleted at the job's end, names
     * none)
     */
    synchronized boolean heldThroughout(String stream) {
        return firstHeld.containsKey(stream)
                && afterHeld.get(stream).keySet().stream().allMatch(s -> s.equals(targetName) || s.equals("none"));
    }

    /**
     * @return per stream: when first held, step-downs, leaders sampled before and after
     */
    synchronized String note() {
        return streams.stream()
            .map(s -> s + " "
                    + (firstHeld.containsKey(s)
                            ? "led by " + targetName + " from "
                                    + String.format(Locale.ROOT, "%.1f s", (firstHeld.get(s) - started) / 1e9)
                            : "never led by " + targetName)
                    + " (" + stepDowns.get(s) + " step-downs), leaders sampled " + samples.get(s)
                    + ", of them from then on " + afterHeld.get(s))
            .collect(Collectors.joining("; ")) + (refusals.isEmpty() ? "" : "; step-downs refused: " + refusals);
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(30_000);
        connection.close();
    }

}
