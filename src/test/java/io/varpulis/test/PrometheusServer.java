package io.varpulis.test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A real Prometheus server (Debian's {@code prometheus} package) for a test: on a free
 * 127.0.0.1 port, scraping every second the targets of a file it rewrites
 * ({@link #scrape}), with basic authentication, evaluating the given rule file every
 * second; its HTTP API read as JSON. {@link #close()} stops it.
 */
public final class PrometheusServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;

    private final Path targets;

    private final int port;

    private PrometheusServer(Process process, Path targets, int port) {
        this.process = process;
        this.targets = targets;
        this.port = port;
    }

    /**
     * Starts Prometheus; its data, configuration and log ({@code prometheus.log}) go in
     * {@code dir}.
     * @param dir a directory of the test's own
     * @param rules the rule file to evaluate
     * @param metricsPath the path to scrape on each target
     * @param user the basic-authentication user
     * @param password its password
     * @return the server, not ready yet (see {@link #isReady()})
     * @throws AssertionError when prometheus is not installed
     * @throws IOException when it cannot be started
     */
    public static PrometheusServer start(Path dir, Path rules, String metricsPath, String user, String password)
            throws IOException {
        ExternalTool prometheus = ExternalTool.require("prometheus", "VARPULIS_PROMETHEUS", List.of(),
                "apt-get install -y prometheus");
        int port = LoopbackPorts.next();
        Path targets = dir.resolve("targets.json");
        Files.writeString(targets, "[]");
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 900ms
                  evaluation_interval: 1s
                rule_files: ['%s']
                scrape_configs:
                  - job_name: varpulis
                    metrics_path: %s
                    basic_auth: {username: '%s', password: '%s'}
                    file_sd_configs:
                      - files: ['%s']
                        refresh_interval: 1s
                """.formatted(rules, metricsPath, user, password, targets));
        List<String> command = new ArrayList<>(List.of(prometheus.path().toString(), "--config.file=" + config,
                "--web.listen-address=127.0.0.1:" + port, "--storage.tsdb.path=" + dir.resolve("data"),
                "--log.level=warn"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
        return new PrometheusServer(process, targets, port);
    }

    /**
     * Replaces the scraped targets (Prometheus reads the file again within a second).
     * @param instances {@code host:port} of each target, its {@code instance} label
     * @throws IOException when the file cannot be written
     */
    public void scrape(List<String> instances) throws IOException {
        Path next = targets.resolveSibling("targets.json.next");
        Files.writeString(next, "[{\"targets\": ["
                + instances.stream().map(i -> "\"" + i + "\"").collect(Collectors.joining(", ")) + "]}]");
        Files.move(next, targets, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * @return whether it answers {@code /-/ready} with 200
     */
    public boolean isReady() {
        try {
            return HTTP.send(HttpRequest.newBuilder(uri("/-/ready")).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode() == 200;
        }
        catch (IOException e) {
            return false;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * @param alertname an alert's name
     * @return the states ({@code pending}, {@code firing}) of its active alerts, empty
     * when none is active
     */
    public List<String> alertStates(String alertname) throws IOException, InterruptedException {
        List<String> states = new ArrayList<>();
        for (JsonNode alert : api("/api/v1/alerts").path("data").path("alerts")) {
            if (alertname.equals(alert.path("labels").path("alertname").asText())) {
                states.add(alert.path("state").asText());
            }
        }
        return states;
    }

    /**
     * @param query a PromQL instant query
     * @return the series it returns now ({@code data.result})
     * @throws AssertionError when Prometheus refuses the query
     */
    public JsonNode query(String query) throws IOException, InterruptedException {
        JsonNode answer = api("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
        if (!"success".equals(answer.path("status").asText())) {
            throw new AssertionError("Prometheus refused " + query + ": " + answer);
        }
        return answer.path("data").path("result");
    }

    /**
     * @return the scrape targets and their health, as {@code /api/v1/targets} gives them
     */
    public JsonNode targets() throws IOException, InterruptedException {
        return api("/api/v1/targets").path("data").path("activeTargets");
    }

    private JsonNode api(String path) throws IOException, InterruptedException {
        return JSON.readTree(HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString())
            .body());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** Stops Prometheus (SIGTERM, then SIGKILL). */
    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(10));
    }

}
