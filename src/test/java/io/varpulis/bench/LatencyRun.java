package io.varpulis.bench;

import io.varpulis.pipeline.RouteEdge;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The routed hop at a paced rate: the time from an event's due publish time to the end of
 * its apply (publish -> PubAck -> stream -> pull -> decode -> apply), recorded in
 * microseconds in an HdrHistogram. The PubAck round trip is recorded too. Publisher and
 * consumer are in this JVM, so both read the same monotonic clock.
 */
final class LatencyRun {

    private LatencyRun() {
    }

    /**
     * @param quietWait how long to wait at most for other processes to take under 10 % of
     * the CPU first
     */
    static Result run(HopClient client, RouteEdge edge, int rate, int seconds, Duration quietWait) throws Exception {
        int count = rate * seconds;
        byte[][] payloads = Payloads.events(count);
        AtomicLongArray due = new AtomicLongArray(count);
        Histogram applyLatency = new Histogram(60_000_000L, 3);
        Histogram pubAckLatency = new Histogram(60_000_000L, 3);
        Progress progress = new Progress(count);
        client.consume(edge, seq -> {
            long latency = micros(System.nanoTime() - due.get(seq));
            synchronized (progress) {
                applyLatency.recordValue(latency);
                progress.applied(seq);
            }
        });
        String subject = edge.subject();
        CpuUsage.awaitQuiet(ThroughputRun.QUIET_PERCENT, quietWait);
        CpuUsage before = CpuUsage.now();
        PacedPublisher.run(rate, count, (i, dueNanos) -> {
            due.set(i, dueNanos);
            client.publish(subject, payloads[i], error -> {
                synchronized (pubAckLatency) {
                    pubAckLatency.recordValue(micros(System.nanoTime() - dueNanos));
                }
                progress.confirmed(error);
            });
        });
        boolean complete = progress.await(Duration.ofSeconds(30), ThroughputRun.STALL);
        double foreign = CpuUsage.now().foreignPercentSince(before);
        synchronized (progress) {
            return new Result(client.name(), client.substrate().name().toLowerCase(), rate, seconds, count, complete,
                    count - progress.applied(), progress.failed(), applyLatency.copy(), pubAckLatency.copy(), foreign);
        }
    }

    private static long micros(long nanos) {
        return Math.max(0, nanos / 1000);
    }

    /**
     * @param apply due time to end of apply, us
     * @param pubAck due time to PubAck (core: to hand-off to the client), us
     * @param foreign other processes' share of the machine's CPU during the run, %
     */
    record Result(String client, String substrate, int rate, int seconds, int events, boolean complete, int missing,
            int failed, Histogram apply, Histogram pubAck, double foreign) {
    }

}
