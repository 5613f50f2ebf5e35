package io.varpulis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.test.NatsTestProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.SubstrateFixture;
import io.varpulis.transport.OutboundMessage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory of a worker node under the paced load: a coordinator and a worker started from
 * the node jar, a pipeline group {@code _external -> sink} (processor
 * {@code passthrough}, no outgoing route) deployed through the coordinator's API, and
 * this JVM publishing to the edge at the paced rate with the product's transport. The
 * worker's VmRSS is sampled every 100 ms from /proc; after the load it runs a full GC
 * ({@code jcmd GC.run}) and its heap use is read from {@code /actuator/metrics}.
 */
final class MemoryRun {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);

    private MemoryRun() {
    }

    /**
     * A worker JVM configuration.
     *
     * @param label its name in the table
     * @param flags its JVM flags
     */
    record JvmConfiguration(String label, List<String> flags) {
    }

    /**
     * The deployment's: the image's
     * {@code -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError} in the Helm chart's 768
     * MiB worker limit. The JVM is told the limit with MaxRAM, since it does not run in
     * that container here, and SerialGC is what it picks by itself in a container under
     * 1792 MB. Then the JVM's defaults on this host (G1, a quarter of the RAM as maximum
     * heap), for comparison.
     */
    static final List<JvmConfiguration> CONFIGURATIONS = List.of(
            new JvmConfiguration("as deployed (768 MiB limit)",
                    List.of("-XX:MaxRAM=768m", "-XX:MaxRAMPercentage=75", "-XX:+UseSerialGC",
                            "-XX:+ExitOnOutOfMemoryError")),
            new JvmConfiguration("JVM defaults on this host", List.of()));

    static Result run(Broker broker, Path jar, JvmConfiguration configuration, String group, int rate, int seconds,
            Path logDir) throws Exception {
        RouteEdge edge = new RouteEdge(group, "_external", "sink");
        String durable = DurableNames.routeConsumer(edge.to(), edge.subject());
        try (NodeJvm coordinator = NodeJvm.start(jar, group + "-coordinator", configuration.flags(),
                List.of("--varpulis.cluster.role=coordinator", "--varpulis.cluster.coordinator-id=" + group),
                broker.url(), logDir)) {
            coordinator.awaitReady();
            String workerId = group + "-worker";
            try (NodeJvm worker = NodeJvm.start(jar, workerId, configuration.flags(),
                    List.of("--varpulis.cluster.role=worker", "--varpulis.cluster.worker-id=" + workerId), broker.url(),
                    logDir)) {
                worker.awaitReady();
                await(() -> coordinator.http("/api/v1/cluster/workers", null).contains(workerId),
                        workerId + " registered with the coordinator");
                long idleKb = worker.statusKb("VmRSS");
                coordinator.http("/api/v1/cluster/pipeline-groups", "{\"name\":\"" + group + "\",\"pipelines\":"
                        + "[{\"name\":\"sink\",\"processor\":{\"type\":\"passthrough\"}}],\"routes\":"
                        + "[{\"from_pipeline\":\"_external\",\"to_pipeline\":\"sink\",\"event_types\":[\"*\"]}]}");
                await(() -> broker.consumerExists(durable), "the sink pipeline's durable " + durable);
                AtomicLong peakKb = new AtomicLong(idleKb);
                Thread sampler = new Thread(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        peakKb.accumulateAndGet(worker.statusKb("VmRSS"), Math::max);
                        try {
                            Thread.sleep(100);
                        }
                        catch (InterruptedException e) {
                            return;
                        }
                    }
                }, "rss-sampler");
                sampler.start();
                long drainedMillis;
                try (SubstrateFixture publisher = SubstrateFixture.connect(broker.url(), Substrate.JETSTREAM,
                        new NatsTestProperties())) {
                    int count = rate * seconds;
                    byte[][] payloads = Payloads.events(count);
                    PacedPublisher.run(rate, count, (i, due) -> publisher.transport
                        .publish(new OutboundMessage(edge.subject(), payloads[i], null)));
                    long published = System.nanoTime();
                    if (!broker.settled(durable, SETTLE_TIMEOUT)) {
                        throw new IllegalStateException("the worker did not apply and ack every event within "
                                + SETTLE_TIMEOUT.toSeconds() + " s; see " + logDir);
                    }
                    drainedMillis = (System.nanoTime() - published) / 1_000_000;
                }
                finally {
                    sampler.interrupt();
                    sampler.join();
                }
                long applied = (long) metric(worker, "varpulis.events.applied", "pipeline:sink");
                worker.fullGc();
                return new Result(configuration.label(), String.join(" ", configuration.flags()), rate, seconds,
                        applied, drainedMillis, idleKb, peakKb.get(), worker.statusKb("VmHWM"),
                        worker.statusKb("VmRSS"), (long) metric(worker, "jvm.memory.used", "area:heap"),
                        (long) metric(worker, "jvm.memory.committed", "area:heap"));
            }
        }
    }

    private static double metric(NodeJvm node, String name, String tag) throws Exception {
        JsonNode body = JSON.readTree(node.http("/actuator/metrics/" + name + "?tag=" + tag, null));
        return body.path("measurements").path(0).path("value").asDouble(-1);
    }

    private static void await(Check check, String what) throws Exception {
        long deadline = System.nanoTime() + NodeJvm.READY_TIMEOUT.toNanos();
        while (!check.done()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    @FunctionalInterface
    private interface Check {

        boolean done() throws Exception;

    }

    /**
     * @param appliedEvents events the worker applied
     * ({@code varpulis.events.applied{pipeline=sink}})
     * @param drainedMillis from the last publish until the worker's durable had nothing
     * pending or unacked (polled every 20 ms): how far behind the load the worker was
     * @param idleKb RSS once registered, before the load
     * @param peakKb highest RSS sampled during the load
     * @param hwmKb VmHWM: the peak RSS since the JVM started (includes start-up)
     * @param afterKb RSS after the load and a full GC
     * @param heapAfterGc heap used after a full GC, bytes
     * @param heapCommitted heap committed after that GC, bytes
     */
    record Result(String label, String flags, int rate, int seconds, long appliedEvents, long drainedMillis,
            long idleKb, long peakKb, long hwmKb, long afterKb, long heapAfterGc, long heapCommitted) {
    }

}
