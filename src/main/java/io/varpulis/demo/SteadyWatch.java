package io.varpulis.demo;

import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.varpulis.pipeline.RouteEdge;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The run's steady part (issue 34): samples how much of {@code detect}'s input has been
 * acknowledged, every {@value #POLL_MILLIS} ms from before the first publish until after
 * the drain, so that the job's rate can be told apart from its JVMs' warm-up at the start
 * and its alert tail at the end.
 * <p>
 * The cut: {@code detect}'s input is the ingress's output, one message per message of
 * lines (a batch of up to {@code --batch} lines), so the share of it acknowledged is the
 * share of the log through the first two stages. The steady part runs from the first
 * sample at which its durable's ack floor (consumer sequence, summed over
 * {@code detect}'s input edges) reached {@value #FROM} of the messages it was delivered
 * in the whole run, to the first at which it reached {@value #TO}. Its rate is the lines
 * those acknowledged messages stand for,
 * {@code lines x (acked at the end of the cut - acked at its start) / delivered}, divided
 * by the seconds between the two samples. A redelivery (a killed worker) advances the
 * consumer sequence too, so the cut is meant for runs without a kill.
 */
final class SteadyWatch implements AutoCloseable {

    /** The share of {@code detect}'s input acknowledged where the steady part starts. */
    static final double FROM = 0.2;

    /** ... and where it ends. */
    static final double TO = 0.8;

    /** The sampling period: 2-3 % of a 1 000 000-line run's steady part on 2 cores. */
    static final long POLL_MILLIS = 50;

    private final JetStreamManagement jsm;

    private final List<RouteEdge> edges;

    private final List<Sample> samples = new ArrayList<>();

    private final long startNanos = System.nanoTime();

    private final Instant start = Instant.now();

    private final Thread sampler;

    private volatile boolean stopped;

    /**
     * One poll: when (nanoTime), messages acknowledged (the ack floors' sum), messages
     * delivered.
     */
    private record Sample(long nanos, long acked, long delivered) {
    }

    /**
     * The steady part's figures.
     *
     * @param linesPerSecond lines the acknowledged messages of the cut stand for, per
     * second of the cut
     * @param fromSeconds the cut's start, seconds after the first publish
     * @param toSeconds the cut's end, seconds after the first publish
     */
    record Steady(double linesPerSecond, double fromSeconds, double toSeconds) {
    }

    /**
     * Starts sampling on a daemon thread.
     * @param jsm the demo's connection's
     * @param edges {@code detect}'s input edges (unpartitioned subjects; a partitioned
     * {@code detect}'s repartitioner reads them)
     */
    SteadyWatch(JetStreamManagement jsm, List<RouteEdge> edges) {
        this.jsm = jsm;
        this.edges = List.copyOf(edges);
        this.sampler = new Thread(this::sample, "varpulis-demo-steady-watch");
        sampler.setDaemon(true);
        sampler.start();
    }

    private void sample() {
        while (!stopped) {
            poll();
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            }
            catch (InterruptedException e) {
                return;
            }
        }
    }

    private void poll() {
        long acked = 0;
        long delivered = 0;
        try {
            for (RouteEdge edge : edges) {
                ConsumerInfo info = DrainWatch.consumer(jsm, edge);
                if (info != null) {
                    acked += info.getAckFloor().getConsumerSequence();
                    delivered += info.getDelivered().getConsumerSequence();
                }
            }
        }
        catch (Exception e) {
            // NATS away for a moment: no sample.
            return;
        }
        Sample sample = new Sample(System.nanoTime(), acked, delivered);
        synchronized (samples) {
            samples.add(sample);
        }
    }

    /**
     * Stops sampling after one last sample (the run has drained: everything delivered is
     * acknowledged).
     */
    @Override
    public void close() {
        stopped = true;
        sampler.interrupt();
        try {
            sampler.join(Duration.ofSeconds(5).toMillis());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        poll();
    }

    /**
     * @param lines the lines of the run
     * @param firstPublish when the first line was published
     * @return the steady part's figures, or {@code null} when the run was too short to
     * cut (the two ends in the same sample) or nothing was delivered
     */
    Steady steady(long lines, Instant firstPublish) {
        List<Sample> all;
        synchronized (samples) {
            all = List.copyOf(samples);
        }
        if (all.isEmpty()) {
            return null;
        }
        long total = all.get(all.size() - 1).delivered();
        Sample from = first(all, FROM * total);
        Sample to = first(all, TO * total);
        if (total == 0 || from == null || to == null || to.nanos() <= from.nanos()) {
            return null;
        }
        double seconds = (to.nanos() - from.nanos()) / 1e9;
        double steadyLines = (double) lines * (to.acked() - from.acked()) / total;
        double offset = Duration.between(firstPublish, start).toNanos() / 1e9;
        return new Steady(steadyLines / seconds, offset + (from.nanos() - startNanos) / 1e9,
                offset + (to.nanos() - startNanos) / 1e9);
    }

    private static Sample first(List<Sample> samples, double acked) {
        return samples.stream().filter(s -> s.acked() >= acked).findFirst().orElse(null);
    }

}
