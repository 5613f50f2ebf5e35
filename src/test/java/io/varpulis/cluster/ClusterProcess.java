package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.test.LoopbackPorts;
import io.varpulis.test.Processes;
import io.varpulis.test.TestCredentials;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A cluster node run as its own JVM, the way an operator runs the jar: the application's
 * main class on this build's classpath (without the test classes), HTTP on a free
 * 127.0.0.1 port (requests carry {@link TestCredentials}), its output in a log file.
 * {@link #kill()} is SIGKILL, nothing shut down; {@link #close()} is SIGTERM (graceful),
 * then SIGKILL.
 */
final class ClusterProcess implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    // Processes still running when the test JVM exits are killed, so none keeps a port or
    // a lease.
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(process -> {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }), "cluster-process-reaper"));
    }

    private final String name;

    private final int port;

    private final Path log;

    private final Process process;

    private ClusterProcess(String name, int port, Path log, Process process) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /**
     * @param name the node's name (its log file)
     * @param logDir where the log goes
     * @param args {@code --key=value} arguments: role, ids, URL, timings
     * @return the started process (not ready yet)
     */
    static ClusterProcess start(String name, Path logDir, List<String> args) throws IOException {
        return start(name, logDir, List.of(), args);
    }

    /**
     * A node whose wall clock runs ahead of the server's, as on a host whose time is not
     * synchronised: libfaketime (Debian's {@code faketime}) shifts
     * {@code System.currentTimeMillis} and {@code Instant.now}. It shifts the monotonic
     * clock by the same constant too, which leaves its differences (all the JVM uses)
     * intact: with {@code FAKETIME_DONT_FAKE_MONOTONIC=1} the JVM's timed
     * {@code Object.wait} returns at once and the node spins.
     * @param name the node's name (its log file)
     * @param logDir where the log goes
     * @param ahead how far its wall clock runs ahead
     * @param args {@code --key=value} arguments
     * @return the started process (not ready yet)
     */
    static ClusterProcess startWithClockAhead(String name, Path logDir, Duration ahead, List<String> args)
            throws IOException {
        boolean installed = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            .anyMatch(dir -> Files.isExecutable(Path.of(dir, "faketime")));
        if (!installed) {
            throw new IllegalStateException("faketime is not on PATH: install Debian's faketime (apt-get install -y "
                    + "faketime), as .ci/run does");
        }
        return start(name, logDir, List.of("faketime", "-f", "+" + ahead.toSeconds() + "s"), args);
    }

    private static ClusterProcess start(String name, Path logDir, List<String> prefix, List<String> args)
            throws IOException {
        int port = LoopbackPorts.next();
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.endsWith("test-classes"))
            .collect(Collectors.joining(File.pathSeparator));
        List<String> command = new ArrayList<>(prefix);
        command.addAll(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC", "-Xmx256m", "-cp", classPath, "io.varpulis.VarpulisClusterApplication"));
        command.addAll(args);
        command.addAll(List.of("--server.address=127.0.0.1", "--server.port=" + port, TestCredentials.PASSWORD_ARGUMENT,
                "--spring.main.banner-mode=off", "--logging.level.root=WARN", "--logging.level.io.varpulis=INFO"));
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
        LIVE.add(process);
        return new ClusterProcess(name, port, log, process);
    }

    String name() {
        return name;
    }

    Path log() {
        return log;
    }

    /**
     * @return {@code 127.0.0.1:port} of its HTTP port, where a Prometheus scrapes it
     */
    String address() {
        return "127.0.0.1:" + port;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * @param timeout how long to wait
     * @return the exit status, empty when it still runs
     */
    Optional<Integer> awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? Optional.of(process.exitValue())
                : Optional.empty();
    }

    /**
     * @param path a path on the node's HTTP port
     * @return status and JSON body, or empty while it does not listen yet
     */
    Optional<ClusterNode.Response> get(String path) {
        try {
            HttpResponse<String> response = HTTP
                .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(3))
                    .header("Authorization", TestCredentials.adminBasic())
                    .build(), HttpResponse.BodyHandlers.ofString());
            JsonNode body = response.body().isEmpty() ? JSON.nullNode() : JSON.readTree(response.body());
            return Optional.of(new ClusterNode.Response(response.statusCode(), body));
        }
        catch (IOException e) {
            return Optional.empty();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * @param path a path of the operator API
     * @param json the body
     * @return the answer
     */
    ClusterNode.Response post(String path, String json) throws IOException, InterruptedException {
        return post(path, json, Map.of());
    }

    /**
     * @param path a path of the operator API
     * @param json the body
     * @param headers more request headers ({@code traceparent}, ...)
     * @return the answer
     */
    ClusterNode.Response post(String path, String json, Map<String, String> headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Authorization", TestCredentials.adminBasic());
        headers.forEach(request::header);
        HttpResponse<String> response = HTTP.send(request.POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new ClusterNode.Response(response.statusCode(),
                response.body().isEmpty() ? JSON.nullNode() : JSON.readTree(response.body()));
    }

    /**
     * @return the log so far
     */
    String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    /**
     * SIGSTOP: every thread of the JVM stops where it is, as in a long GC pause or a
     * frozen VM.
     */
    void pause() throws IOException, InterruptedException {
        signal("-STOP");
    }

    /** SIGCONT: a paused JVM goes on where it stopped. */
    void resume() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        int status = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start().waitFor();
        if (status != 0) {
            throw new IOException("kill " + signal + " " + process.pid() + " exited with " + status);
        }
    }

    /** SIGKILL: the JVM dies at once, without shutting anything down. */
    void kill() {
        Processes.kill(process);
        LIVE.remove(process);
    }

    /** SIGTERM (graceful shutdown), then SIGKILL after 30 s. */
    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(30));
        LIVE.remove(process);
    }

}
