package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.varpulis.cluster.worker.RefusalExit;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 15, item 3, and issue 12, item 3, as an operator meets them: a worker the
 * coordinator refuses for a reason retrying cannot fix (a wrong api-key, another
 * substrate) is unready with the reason in its {@code cluster} health details and runs
 * nothing; run as the node process with its defaults, it exits with status 78 after
 * saying why. A worker killed with SIGKILL and started again on the same host takes its
 * id back at once, without waiting for the dead process's lease to lapse.
 */
@BrokerTest
class RefusedWorkerTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    @TempDir
    Path logs;

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void aWorkerWithAWrongApiKeyOrAnotherSubstrateIsUnreadyWithTheReasonAndRunsNothing() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats.url(), "jetstream", "coord-keyed",
                "--varpulis.cluster.api-key=the-right-key");
                ClusterNode wrongKey = ClusterNode.worker(nats.url(), "jetstream", "worker-wrong-key", true,
                        "--varpulis.cluster.api-key=a-wrong-key");
                ClusterNode wrongSubstrate = ClusterNode.worker(nats.url(), "core", "worker-core", true,
                        "--varpulis.cluster.api-key=the-right-key")) {
            await().atMost(WAIT).untilAsserted(() -> {
                assertUnready(wrongKey, "invalid api_key", "varpulis.cluster.api-key");
                assertUnready(wrongSubstrate, "runs on the core substrate", "VARPULIS_NATS_SUBSTRATE=jetstream");
            });
            assertThat(coordinator.coordinator().workers()).isEmpty();
            assertThat(wrongKey.worker().currentHeartbeat().pipelineMetrics()).isEmpty();
        }
    }

    @Test
    void theNodeProcessOfAWorkerWithAWrongApiKeyExitsWithStatus78AndSaysWhy() throws Exception {
        try (ClusterNode coordinator = ClusterNode.coordinator(nats.url(), "jetstream", "coord-exit",
                "--varpulis.cluster.api-key=the-right-key");
                ClusterProcess worker = ClusterProcess.start("worker-exit", logs,
                        List.of("--varpulis.cluster.role=worker", "--varpulis.nats.url=" + nats.url(),
                                "--varpulis.nats.substrate=jetstream", "--varpulis.cluster.worker-id=worker-exit",
                                "--varpulis.cluster.api-key=a-wrong-key"))) {
            Optional<Integer> status = worker.awaitExit(WAIT);

            assertThat(status).as("exit status; log:%n%s", worker.output()).contains(RefusalExit.STATUS);
            assertThat(worker.output()).contains("the coordinator refused worker worker-exit: invalid api_key",
                    "retrying cannot help, so the node exits with status 78");
            assertThat(coordinator.coordinator().workers()).isEmpty();
        }
    }

    @Test
    void aWorkerKilledAndStartedAgainOnTheSameHostTakesItsIdAtOnce() throws Exception {
        // A lease far longer than the test: only the same-host takeover can explain a
        // quick return.
        List<String> args = List.of("--varpulis.cluster.role=worker", "--varpulis.nats.url=" + nats.url(),
                "--varpulis.nats.substrate=jetstream", "--varpulis.cluster.worker-id=worker-phoenix",
                "--varpulis.cluster.worker-lease-ttl=10m", "--varpulis.cluster.heartbeat-interval=500ms",
                "--varpulis.cluster.heartbeat-timeout=2s");
        try (ClusterNode coordinator = ClusterNode.coordinator(nats, "jetstream", "coord-phoenix")) {
            ClusterProcess first = ClusterProcess.start("worker-phoenix-1", logs, args);
            try {
                await().atMost(WAIT).until(() -> coordinator.coordinator().worker("worker-phoenix").isPresent());
            }
            finally {
                first.kill();
            }
            Instant restarted = Instant.now();
            try (ClusterProcess second = ClusterProcess.start("worker-phoenix-2", logs, args)) {
                await().atMost(WAIT)
                    .until(() -> coordinator.coordinator()
                        .worker("worker-phoenix")
                        .filter(w -> w.registeredAt().isAfter(restarted) && w.isReady())
                        .isPresent());

                assertThat(second.output()).contains("which is gone; taken over");
                // The worker registers as its lifecycle starts; its web server may open a
                // moment later.
                await().atMost(WAIT)
                    .until(() -> second.get("/actuator/health/readiness").map(r -> r.status() == 200).orElse(false));
            }
        }
    }

    private static void assertUnready(ClusterNode worker, String... reason) throws Exception {
        ClusterNode.Response readiness = worker.get("/actuator/health/readiness");
        assertThat(readiness.status()).isEqualTo(503);
        JsonNode details = readiness.body().path("components").path("cluster").path("details").path("worker");
        assertThat(details.path("reason").asText()).contains(reason);
        assertThat(details.path("registered").asBoolean()).isFalse();
    }

}
