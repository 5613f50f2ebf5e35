package io.varpulis.test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Zipkin's server (the executable jar {@code io.zipkin:zipkin-server:exec}) as a child
 * process on a free loopback port, with in-memory storage, for tests that export real
 * traces (SPEC section 14). The jar is {@code VARPULIS_ZIPKIN_JAR}, else
 * {@code ~/.cache/varpulis/zipkin/zipkin-server-}{@value #VERSION}{@code -exec.jar} as
 * {@code scripts/install-zipkin.sh} leaves it (the script is run when the jar is
 * missing). A server that cannot start fails the test: it never skips.
 */
public final class ZipkinServer implements AutoCloseable {

    /** The version {@code scripts/install-zipkin.sh} installs by default. */
    public static final String VERSION = "3.6.1";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;

    private final int port;

    private final Path log;

    private ZipkinServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /**
     * @param logDir where its log goes ({@code zipkin.log})
     * @return a server that answers {@code /health}
     * @throws IllegalStateException when the jar cannot be found or installed, or the
     * server does not come up
     */
    public static ZipkinServer start(Path logDir) throws IOException, InterruptedException {
        Path jar = jar();
        int port = LoopbackPorts.next();
        Files.createDirectories(logDir);
        Path log = logDir.resolve("zipkin.log");
        List<String> command = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                        "-XX:TieredStopAtLevel=1", "-jar", jar.toString(), "--armeria.ports[0].ip=127.0.0.1",
                        "--armeria.ports[0].port=" + port, "--armeria.ports[0].protocols[0]=http"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("QUERY_PORT", Integer.toString(port));
        builder.environment().put("STORAGE_TYPE", "mem");
        ZipkinServer server = new ZipkinServer(builder.start(), port, log);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!server.process.isAlive()) {
                throw new IllegalStateException("Zipkin (" + jar + ") exited with " + server.process.exitValue()
                        + " before it answered; see " + log);
            }
            if (server.healthy()) {
                return server;
            }
            Thread.sleep(500);
        }
        server.close();
        throw new IllegalStateException(
                "Zipkin did not answer /health on port " + port + " within " + START_TIMEOUT + "; see " + log);
    }

    private static Path jar() throws IOException, InterruptedException {
        String configured = System.getenv("VARPULIS_ZIPKIN_JAR");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        Path cached = Path.of(System.getProperty("user.home"), ".cache", "varpulis", "zipkin",
                "zipkin-server-" + VERSION + "-exec.jar");
        if (!Files.isRegularFile(cached)) {
            Process install = new ProcessBuilder("scripts/install-zipkin.sh", VERSION).inheritIO().start();
            if (!install.waitFor(10, TimeUnit.MINUTES) || install.exitValue() != 0 || !Files.isRegularFile(cached)) {
                throw new IllegalStateException("no Zipkin server jar at " + cached + " and scripts/install-zipkin.sh"
                        + " could not install it; run it by hand or set VARPULIS_ZIPKIN_JAR");
            }
        }
        return cached;
    }

    private boolean healthy() {
        try {
            return HTTP
                .send(HttpRequest.newBuilder(uri("/health")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding())
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
     * @return where a node sends spans: {@code management.tracing.export.zipkin.endpoint}
     */
    public String spansEndpoint() {
        return uri("/api/v2/spans").toString();
    }

    /**
     * @param traceId a trace id (32 hex digits)
     * @return its spans as Zipkin's v2 JSON array (empty while Zipkin has none of them)
     */
    public JsonNode trace(String traceId) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(uri("/api/v2/trace/" + traceId)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? JSON.readTree(response.body()) : JSON.createArrayNode();
    }

    /**
     * @param serviceName a node's {@code spring.application.name}
     * @param spanName a span name (Zipkin keeps names in lower case)
     * @return the traces of the last hour holding such a span of that service, each a v2
     * JSON array of spans
     */
    public JsonNode traces(String serviceName, String spanName) throws IOException, InterruptedException {
        String query = "/api/v2/traces?serviceName=" + encode(serviceName) + "&spanName=" + encode(spanName)
                + "&lookback=3600000&limit=100";
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(uri(query)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? JSON.readTree(response.body()) : JSON.createArrayNode();
    }

    private static String encode(String text) {
        return java.net.URLEncoder.encode(text, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /**
     * @return its log file
     */
    public Path log() {
        return log;
    }

    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(10));
    }

}
