package io.varpulis.bench;

import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;

import java.time.Duration;

/**
 * The routed hop at full speed: one thread publishes every event as fast as the
 * publisher's window allows, while the consumer applies and acks them. Timed from the
 * first publish to the later of the last PubAck and the last apply; then, on JetStream,
 * the consumer must show nothing pending and nothing awaiting an ack (not timed).
 * <p>
 * Stored mode ({@code --hop-mode=stored}, JetStream; issue 34): every event is published
 * and stored first, untimed, and the run times the consumer alone, from the start of its
 * consumption to its last apply: what a service's listener costs against a plain
 * consumer, whatever either client publishes with.
 */
final class ThroughputRun {

    /**
     * A run that has not finished after this long is reported as incomplete, not waited
     * for.
     */
    static final Duration TIMEOUT = Duration.ofMinutes(3);

    /** ... or when nothing moved for this long. */
    static final Duration STALL = Duration.ofSeconds(10);

    /**
     * A run starts once other processes take less than this share of the machine's CPU...
     */
    static final double QUIET_PERCENT = 10;

    /**
     * ... or after this long whatever they take (the default of {@code --quiet-wait});
     * the table shows their share.
     */
    static final Duration QUIET_WAIT = Duration.ofSeconds(60);

    private ThroughputRun() {
    }

    /**
     * @param quietWait how long to wait at most for the machine to be quiet first, or
     * {@code null} not to look (warm-up runs)
     */
    static Result run(Broker broker, HopClient client, RouteEdge edge, byte[][] payloads, Duration quietWait,
            boolean stored) throws Exception {
        Progress progress = new Progress(payloads.length);
        String subject = edge.subject();
        if (stored) {
            for (byte[] payload : payloads) {
                client.publish(subject, payload, progress::confirmed);
            }
            progress.awaitConfirmed(TIMEOUT);
        }
        else {
            client.consume(edge, progress::applied);
        }
        double foreignBefore = quietWait != null ? CpuUsage.awaitQuiet(QUIET_PERCENT, quietWait) : Double.NaN;
        CpuUsage cpuBefore = CpuUsage.now();
        long start = System.nanoTime();
        if (stored) {
            client.consume(edge, progress::applied);
        }
        else {
            for (byte[] payload : payloads) {
                client.publish(subject, payload, progress::confirmed);
            }
        }
        boolean complete = progress.await(TIMEOUT, STALL);
        CpuUsage cpuAfter = CpuUsage.now();
        long end = stored ? progress.lastAppliedNanos()
                : Math.max(progress.lastConfirmedNanos(), progress.lastAppliedNanos());
        boolean settled = client.substrate() == Substrate.CORE
                || broker.settled(client.durable(edge), Duration.ofSeconds(10));
        return new Result(client.name(), client.substrate(), payloads.length,
                !complete ? Double.NaN : stored ? 0 : (progress.lastConfirmedNanos() - start) / 1e9,
                complete ? (end - start) / 1e9 : Double.NaN, progress.failed(), payloads.length - progress.applied(),
                progress.duplicates(), settled, cpuAfter.jvmMicrosSince(cpuBefore) / payloads.length,
                cpuAfter.childrenMicrosSince(cpuBefore) / payloads.length, foreignBefore,
                cpuAfter.foreignPercentSince(cpuBefore));
    }

    /**
     * @param publishSeconds first publish to last PubAck
     * @param totalSeconds first publish to the later of last PubAck and last apply+ack
     * @param failed publishes not confirmed
     * @param missing events never applied
     * @param duplicates events applied more than once
     * @param settled the server saw every ack (always true on core)
     * @param jvmMicros CPU this JVM (publisher and consumer) spent per event, us
     * @param serverMicros CPU the nats-server spent per event, us
     * @param foreignBefore other processes' share of the machine's CPU in the second
     * before the run, %
     * @param foreignDuring ... during the run, %
     */
    record Result(String client, Substrate substrate, int events, double publishSeconds, double totalSeconds,
            int failed, int missing, int duplicates, boolean settled, double jvmMicros, double serverMicros,
            double foreignBefore, double foreignDuring) {

        double eventsPerSecond() {
            return events / totalSeconds;
        }

        boolean clean() {
            return failed == 0 && missing == 0 && duplicates == 0 && settled && !Double.isNaN(totalSeconds);
        }
    }

}
