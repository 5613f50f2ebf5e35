package io.varpulis.demo;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Map;
import java.util.List;
import java.util.UUID;

/**
 * The demo's calls to the operator API of its coordinator ({@code /api/v1/cluster/...},
 * SPEC section 10), with the run's credentials, and the waits built on them (workers
 * registered, the group running).
 */
final class NodeApi {

    /**
     * How long a node may take to start, register, or run the group: generous, as four
     * JVMs starting at once on a loaded host took up to 132 s (the fault suite, load
     * average 40 on 2 cores).
     */
    static final Duration READY_TIMEOUT = Duration.ofMinutes(5);

    /**
     * The run's nodes never run open (SPEC section 10): they get the jar's user
     * {@code varpulis} (ADMIN) with a password made for this run, and the demo's own API
     * calls send it.
     */
    static final String PASSWORD = UUID.randomUUID().toString();

    private static final String AUTHORIZATION = "Basic "
            + Base64.getEncoder().encodeToString(("varpulis:" + PASSWORD).getBytes(StandardCharsets.UTF_8));

    /** A condition is polled this often (ms). */
    private static final long POLL_MILLIS = 250;

    private static final ObjectMapper JSON = new EventCodec().mapper();

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final NodeProcess coordinator;

    /**
     * @param coordinator the node every call goes to (its current port, across restarts)
     */
    NodeApi(NodeProcess coordinator) {
        this.coordinator = coordinator;
    }

    /**
     * Waits until {@code count} workers are registered
     * ({@code GET /api/v1/cluster/workers} lists them).
     * @throws IllegalStateException after {@link #READY_TIMEOUT}, or when a call answers
     * other than 200
     */
    void awaitWorkers(int count) throws Exception {
        until(count + " workers did not register; see the node logs in " + coordinator.log().getParent(),
                () -> get("/api/v1/cluster/workers").size() >= count);
    }

    /**
     * Waits until a worker registered again after a time ({@code worker.registered_at} in
     * {@code GET /api/v1/cluster/workers}).
     * @param workerId the worker's id
     * @param after when it was killed
     * @throws IllegalStateException after {@link #READY_TIMEOUT}, or when a call answers
     * other than 200
     */
    void awaitRegistration(String workerId, Instant after) throws Exception {
        until(workerId + " did not register again; see " + coordinator.log().getParent(), () -> {
            for (JsonNode worker : get("/api/v1/cluster/workers")) {
                JsonNode record = worker.path("worker");
                if (record.path("worker_id").asText().equals(workerId)
                        && Instant.parse(record.path("registered_at").asText()).isAfter(after)) {
                    return true;
                }
            }
            return false;
        });
    }

    /**
     * Waits until every pipeline unit of the group reports in a worker's heartbeat
     * ({@code worker.heartbeat.pipeline_metrics[].group}).
     * @return the worker hosting {@code detect} (its partition 0 when it is partitioned)
     * @throws IllegalStateException after {@link #READY_TIMEOUT}, or when a call answers
     * other than 200
     */
    String awaitRunning(PipelineGroupSpec group) throws Exception {
        until("the pipelines of " + group.name() + " did not start; see the node logs in "
                + coordinator.log().getParent(), () -> {
                    int running = 0;
                    for (JsonNode worker : get("/api/v1/cluster/workers")) {
                        for (JsonNode metric : worker.path("worker").path("heartbeat").path("pipeline_metrics")) {
                            running += group.name().equals(metric.path("group").asText()) ? 1 : 0;
                        }
                    }
                    return running == PipelineUnit.of(group).size();
                });
        Map<String, String> placement = placement(group.name());
        return placement.containsKey("detect") ? placement.get("detect") : placement.get("detect/0");
    }

    /**
     * @param group a deployed group's name
     * @return its {@code placement}: pipeline (or {@code pipeline/partition}) to worker
     * id
     * @throws IllegalStateException when the call answers other than 200
     */
    Map<String, String> placement(String group) throws Exception {
        return JSON.convertValue(get("/api/v1/cluster/pipeline-groups/" + group).path("placement"),
                new TypeReference<Map<String, String>>() {
                });
    }

    /**
     * @param path the API path, with its query
     * @return the JSON answered
     * @throws IllegalStateException when the answer is not 200
     */
    JsonNode get(String path) throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(coordinator.uri(path)).GET(), path);
        if (response.statusCode() != 200) {
            throw refused("GET", path, response);
        }
        return JSON.readTree(response.body());
    }

    /**
     * @param path the API path
     * @param body what is sent, as JSON
     * @throws IllegalStateException when the answer is not 2xx
     */
    void post(String path, Object body) throws Exception {
        expect2xx("POST", path,
                send(HttpRequest.newBuilder(coordinator.uri(path))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))), path));
    }

    /**
     * @param path the API path, with its query
     * @throws IllegalStateException when the answer is not 2xx
     */
    void delete(String path) throws Exception {
        expect2xx("DELETE", path, send(HttpRequest.newBuilder(coordinator.uri(path)).DELETE(), path));
    }

    /**
     * What a node found the servers lost (issue 43): the {@code losses} of its
     * {@code jetstream} health component ({@code GET /actuator/health/jetstream}, details
     * for an authenticated principal), each as its detail sentence.
     * @param node a node of the run
     * @return its losses, empty when it found none or does not answer
     */
    static List<String> losses(NodeProcess node) {
        try {
            HttpResponse<String> response = send(
                    HttpRequest.newBuilder(node.uri("/actuator/health/jetstream")).timeout(Duration.ofSeconds(5)).GET(),
                    "/actuator/health/jetstream");
            List<String> losses = new ArrayList<>();
            JSON.readTree(response.body())
                .path("details")
                .path("losses")
                .forEach(loss -> losses.add(loss.path("detail").asText()));
            return losses;
        }
        catch (Exception e) {
            return List.of();
        }
    }

    /**
     * What a node counted of what the servers lost (issue 43): the sum of its
     * {@code varpulis_jetstream_losses_total} series ({@code GET /actuator/prometheus}).
     * @param node a node of the run
     * @return the count, or -1 when the node does not answer
     */
    static long lossesCounted(NodeProcess node) {
        try {
            HttpResponse<String> response = send(
                    HttpRequest.newBuilder(node.uri("/actuator/prometheus")).timeout(Duration.ofSeconds(5)).GET(),
                    "/actuator/prometheus");
            if (response.statusCode() != 200) {
                return -1;
            }
            return Math.round(response.body()
                .lines()
                .filter(line -> line.startsWith("varpulis_jetstream_losses_total{"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum());
        }
        catch (Exception e) {
            return -1;
        }
    }

    private static HttpResponse<String> send(HttpRequest.Builder request, String path) throws Exception {
        return HTTP.send(request.header("Authorization", AUTHORIZATION).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void expect2xx(String method, String path, HttpResponse<String> response) {
        if (response.statusCode() / 100 != 2) {
            throw refused(method, path, response);
        }
    }

    private static IllegalStateException refused(String method, String path, HttpResponse<String> response) {
        return new IllegalStateException(
                method + " " + path + " answered " + response.statusCode() + ": " + response.body());
    }

    /**
     * Polls a condition every {@link #POLL_MILLIS} ms until it holds, for at most
     * {@link #READY_TIMEOUT}.
     */
    private static void until(String failure, Check check) throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (check.holds()) {
                return;
            }
            Thread.sleep(POLL_MILLIS);
        }
        throw new IllegalStateException(failure + " (waited " + READY_TIMEOUT.toSeconds() + " s)");
    }

    @FunctionalInterface
    private interface Check {

        boolean holds() throws Exception;

    }

}
