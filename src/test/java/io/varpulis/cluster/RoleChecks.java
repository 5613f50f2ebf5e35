package io.varpulis.cluster;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.test.NatsServerExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the permission tests share (plain users and user JWTs alike): a stateful group a
 * coordinator and a worker run with their own NATS users, the refusals a connection is
 * told of, and the violations the server logged.
 */
final class RoleChecks {

    /**
     * The group's {@code brute-force} is one of the main job's types, which a node
     * registers only when told to.
     */
    static final String DEMO_PROCESSORS = "--varpulis.demo.processors.enabled=true";

    private static final Duration WAIT = Duration.ofSeconds(30);

    private RoleChecks() {
    }

    /**
     * {@code _external -> count -> c}: {@code count} is {@code brute-force} with
     * threshold 2 (window counts in the group's state bucket), {@code c} the worker's
     * recording bean.
     * @param name the group name
     * @return the group
     */
    static PipelineGroupSpec countingGroup(String name) {
        return new PipelineGroupSpec(name,
                List.of(new PipelineSpec("count", new ProcessorSpec("brute-force", Map.of("threshold", 2))),
                        new PipelineSpec("c", new ProcessorSpec("bean", Map.of("bean", ClusterNode.RECORDER)))),
                List.of(new RouteSpec(Subjects.EXTERNAL, "count", List.of("SshAuthFailure")),
                        new RouteSpec("count", "c", List.of())));
    }

    /**
     * Declares {@link #countingGroup} once the worker registered, injects two failures of
     * one source and waits for the alert at {@code c}: registration, placement, state,
     * routing and PubAcks all went through the users' sets.
     * @param coordinator the coordinator (both nodes started with
     * {@link #DEMO_PROCESSORS})
     * @param worker the only worker
     * @param group the group name
     * @throws Exception when an API request fails
     */
    static void runCountingGroup(ClusterNode coordinator, ClusterNode worker, String group) throws Exception {
        await().atMost(WAIT).until(() -> worker.worker().isRegistered());
        assertThat(coordinator.post("/api/v1/cluster/pipeline-groups", countingGroup(group)).status()).isEqualTo(201);
        await().atMost(WAIT).until(() -> coordinator.coordinator().placementOf(group).size() == 2);
        for (int i = 0; i < 2; i++) {
            assertThat(coordinator.post("/api/v1/cluster/pipeline-groups/" + group + "/inject", failure("10.0.0.9"))
                .status()).isEqualTo(202);
        }
        await().atMost(WAIT)
            .until(() -> worker.recorded(group).stream().anyMatch(e -> e.eventType().equals("BruteForceSuspected")));
    }

    /**
     * @param srcIp the source
     * @return an {@code SshAuthFailure} as the operator API injects it
     */
    static Map<String, Object> failure(String srcIp) {
        return Map.of("event_type", "SshAuthFailure", "timestamp", "2026-11-30T12:00:00Z", "fields",
                Map.of("src_ip", srcIp, "user", "root"));
    }

    /**
     * @param errors where the server's {@code -ERR} lines (permission refusals) go
     * @return a listener adding them
     */
    static ErrorListener recordingErrors(List<String> errors) {
        return new ErrorListener() {
            @Override
            public void errorOccurred(Connection conn, String error) {
                errors.add(error);
            }
        };
    }

    /**
     * The server log's permission violations of the nodes' connections (named
     * {@code varpulis-...}); the refusals a test provokes come from unnamed connections.
     * @param nats the server
     * @return the violation lines
     * @throws IOException when the log cannot be read
     */
    static Set<String> nodeViolations(NatsServerExtension nats) throws IOException {
        Path log = nats.workDir().getParent().resolve("nats-server.log");
        return Files.readAllLines(log)
            .stream()
            .filter(line -> line.contains("Violation"))
            .filter(line -> line.contains(":java:varpulis-"))
            .collect(Collectors.toSet());
    }

}
