package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.impl.Headers;
import io.varpulis.bruteforce.BruteForceAlert;
import io.varpulis.cluster.coordinator.Placement;
import io.varpulis.cluster.coordinator.WorkerRecord;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 25, item 1 (SPEC section 9, fencing every effect): the worker hosting the alert
 * sink is paused with SIGSTOP (a long GC pause, a frozen VM) while it holds deliveries it
 * pulled; its pipeline moves to the other worker, which writes every alert; then the
 * paused worker is resumed with SIGCONT. It must find that it no longer owns the pipeline
 * before any effect: no alert is written twice to the file both workers share, it says so
 * once at ERROR, and its heartbeats stop reporting the pipeline.
 */
@BrokerTest
class WorkerPauseTest {

    @RegisterExtension
    static final NatsServerExtension nats = NatsServerExtension.jetStream();

    private static final EventCodec CODEC = new EventCodec();

    private static final Duration WAIT = Duration.ofSeconds(120);

    private static final String GROUP = "paused";

    private static final int ALERTS = 600;

    @TempDir
    Path dir;

    @Test
    void aWorkerResumedAfterItsSinkMovedWritesNoAlertTwice_andStopsTheSinkBeforeAnyEffect() throws Exception {
        Path alerts = dir.resolve("alerts");
        Path file = alerts.resolve("alerts.jsonl");
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-pause",
                "--varpulis.demo.processors.enabled=true", "--varpulis.demo.processors.alert-dir=" + alerts);
                ClusterProcess w1 = worker("worker-p1", alerts);
                ClusterProcess w2 = worker("worker-p2", alerts);
                Connection client = Nats.connect(nats.url())) {
            await().atMost(WAIT)
                .until(() -> coordinator.coordinator().workers().stream().filter(WorkerRecord::isReady).count() == 2);
            PipelineGroupSpec group = new PipelineGroupSpec(GROUP, List.of(new PipelineGroupSpec.PipelineSpec("alerts",
                    new PipelineGroupSpec.ProcessorSpec("alert-file", Map.of("path", "alerts.jsonl")), null, null)),
                    List.of(new PipelineGroupSpec.RouteSpec(Subjects.EXTERNAL, "alerts",
                            List.of("BruteForceSuspected"))));
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", group).status()).isEqualTo(201);
            await().atMost(WAIT)
                .until(() -> coordinator.coordinator()
                    .placement(GROUP + "/alerts")
                    .filter(Placement::isRunning)
                    .isPresent());
            String host = coordinator.coordinator().placementOf(GROUP).get("alerts");
            ClusterProcess victim = host.equals(w1.name()) ? w1 : w2;

            JetStream js = client.jetStream();
            String entry = new RouteEdge(GROUP, Subjects.EXTERNAL, "alerts").subject();
            for (int i = 0; i < ALERTS; i++) {
                BruteForceAlert alert = new BruteForceAlert("10.0." + i / 250 + "." + i % 250,
                        Instant.parse("2026-12-22T09:10:00Z"), 5);
                js.publishAsync(entry, new Headers().put("Nats-Msg-Id", alert.id()), CODEC.encode(alert.toEvent()));
            }
            await().atMost(WAIT).until(() -> lines(file).size() >= 20);
            victim.pause();
            try {
                await().atMost(WAIT)
                    .until(() -> coordinator.coordinator()
                        .placement(GROUP + "/alerts")
                        .filter(p -> p.isRunning() && !p.worker().equals(victim.name()))
                        .isPresent());
            }
            finally {
                victim.resume();
            }
            Instant resumed = Instant.now();
            // Paused in the middle of a write, the victim held the file's lock: its
            // successor writes once it resumed.
            await().atMost(WAIT).until(() -> new HashSet<>(lines(file)).size() == ALERTS);

            await().atMost(WAIT).until(() -> victim.output().contains("stops consuming on this worker"));
            await().atMost(WAIT)
                .until(() -> coordinator.coordinator()
                    .worker(victim.name())
                    .filter(w -> w.heartbeat() != null && w.lastHeartbeat() != null
                            && w.lastHeartbeat().isAfter(resumed.plusSeconds(1)))
                    .map(w -> w.heartbeat()
                        .pipelineMetrics()
                        .stream()
                        .noneMatch(m -> "alerts".equals(m.pipelineName())))
                    .orElse(false));
            List<String> written = lines(file);
            assertThat(written).as("every alert once, none written again by the resumed worker")
                .hasSize(ALERTS)
                .doesNotHaveDuplicates();
            String log = victim.output();
            assertThat(log).contains("pipeline paused/alerts (placement epoch");
            assertThat(log.split("stops consuming on this worker", -1)).as("said once").hasSize(2);
        }
    }

    private static List<String> lines(Path file) throws Exception {
        if (!Files.exists(file)) {
            return List.of();
        }
        return Files.readAllLines(file).stream().filter(line -> line.endsWith("}")).toList();
    }

    private ClusterProcess worker(String id, Path alerts) throws Exception {
        return ClusterProcess.start(id, dir.resolve("logs"),
                List.of("--varpulis.cluster.role=worker", "--varpulis.nats.url=" + nats.url(),
                        "--varpulis.nats.substrate=jetstream", "--varpulis.cluster.worker-id=" + id,
                        "--varpulis.cluster.heartbeat-interval=" + ClusterNode.HEARTBEAT_INTERVAL.toMillis() + "ms",
                        "--varpulis.cluster.heartbeat-timeout=" + ClusterNode.HEARTBEAT_TIMEOUT.toMillis() + "ms",
                        "--varpulis.cluster.worker-lease-ttl=" + ClusterNode.WORKER_LEASE_TTL.toMillis() + "ms",
                        "--varpulis.cluster.command-timeout=2s", "--varpulis.cluster.registration-max-backoff=2s",
                        "--varpulis.demo.processors.enabled=true", "--varpulis.demo.processors.alert-dir=" + alerts,
                        "--varpulis.nats.jetstream.consumer.ack-wait=5s"));
    }

}
