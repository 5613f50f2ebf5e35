package io.varpulis.faults;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Keeps streams led by one server for a whole run: once a stream exists, its leader is asked to step down in favour
 * of the target ({@link StreamLeaders#moveTo}) until the target leads it, and again whenever the leadership leaves it
 * (at most {@code maxStepDowns} step-downs per stream); meanwhile its leader is sampled, every 250 ms until every
 * stream is held, then every second. Each change is printed; {@link #note()} says when each stream was first held,
 * the step-downs it took and in how many samples the target led.
 */
final class LeaderHold implements AutoCloseable {

    private static final int STEP_DOWNS_PER_MOVE = 3;

    private final List<String> urls;
    private final int target;
    private final List<String> streams;
    private final int maxStepDowns;
    private final String label;
    private final long started = System.nanoTime();
    private final Map<String, Map<String, Long>> samples = new LinkedHashMap<>();
    /** Leaders sampled once the target first led the stream. */
    private final Map<String, Map<String, Long>> afterHeld = new LinkedHashMap<>();
    private final Map<String, Integer> stepDowns = new LinkedHashMap<>();
    private final Map<String, Long> firstHeld = new LinkedHashMap<>();
    private final Map<String, Integer> last = new LinkedHashMap<>();
    private final Thread thread;
    private volatile boolean closed;

    /**
     * @param urls         the servers' URLs, in name order
     * @param target       the server that must lead them, 0-based
     * @param streams      the streams (a state bucket is its stream, {@code KV_<bucket>})
     * @param maxStepDowns step-downs per stream at most
     * @param label        the run's name, for what is printed
     */
    LeaderHold(List<String> urls, int target, List<String> streams, int maxStepDowns, String label) {
        this.urls = urls;
        this.target = target;
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
                Thread.sleep(allHeld() ? 1000 : 250);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void sample(String stream) throws InterruptedException {
        int leader = StreamLeaders.leader(urls, stream, -1);
        Integer before = last.get(stream);
        if (leader < 0 && before == null) {
            return; // Not created yet.
        }
        String name = leader < 0 ? "none" : LoopbackCluster.name(leader);
        synchronized (this) {
            samples.get(stream).merge(name, 1L, Long::sum);
            if (leader == target) {
                firstHeld.putIfAbsent(stream, System.nanoTime());
            }
            if (firstHeld.containsKey(stream)) {
                afterHeld.get(stream).merge(name, 1L, Long::sum);
            }
            last.put(stream, leader);
        }
        if (before == null || before != leader) {
            System.out.printf(Locale.ROOT, "%s: %s led by %s at %.1f s%n", label, stream, leader < 0 ? "no server"
                    : LoopbackCluster.name(leader), seconds());
        }
        if (leader >= 0 && leader != target && stepDowns.get(stream) < maxStepDowns && !closed) {
            StreamLeaders.Move move = StreamLeaders.moveTo(urls, stream, target,
                    Math.min(STEP_DOWNS_PER_MOVE, maxStepDowns - stepDowns.get(stream)));
            synchronized (this) {
                stepDowns.merge(stream, move.stepDowns(), Integer::sum);
            }
            System.out.printf(Locale.ROOT, "%s: %s %s %s at %.1f s (%d step-downs so far)%n", label, stream,
                    move.held() ? "moved to" : "could not be moved to", LoopbackCluster.name(target), seconds(),
                    stepDowns.get(stream));
        }
    }

    private synchronized boolean allHeld() {
        return firstHeld.size() == streams.size();
    }

    private double seconds() {
        return (System.nanoTime() - started) / 1e9;
    }

    /**
     * @param stream a stream
     * @return whether the target led it and, from then on, was named its leader in every sample
     */
    synchronized boolean heldThroughout(String stream) {
        return firstHeld.containsKey(stream) && afterHeld.get(stream).keySet().stream()
                .allMatch(s -> s.equals(LoopbackCluster.name(target)));
    }

    /** @return per stream: when first held, step-downs, leaders sampled before and after */
    synchronized String note() {
        return streams.stream().map(s -> s + " " + (firstHeld.containsKey(s) ? "led by " + LoopbackCluster.name(
                target) + " from " + String.format(Locale.ROOT, "%.1f s", (firstHeld.get(s) - started) / 1e9)
                : "never led by " + LoopbackCluster.name(target)) + " (" + stepDowns.get(s)
                + " step-downs), leaders sampled " + samples.get(s) + ", of them from then on " + afterHeld.get(s))
                .collect(Collectors.joining("; "));
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(30_000);
    }
}
