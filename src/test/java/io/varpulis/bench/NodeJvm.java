package io.varpulis.bench;

import io.varpulis.test.LoopbackPorts;
import io.varpulis.test.Processes;
import io.varpulis.test.TestCredentials;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/**
 * A cluster node started from the built jar
 * ({@code java -jar target/varpulis-cluster-*.jar --varpulis.cluster.role=...}) on the
 * benchmark's server, JetStream, HTTP on a free 127.0.0.1 port, its output in a log file
 * under target/bench.
 */
public final class NodeJvm implements AutoCloseable {

    /** How long a node may take to answer readiness UP before the scenario gives up. */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    // Nodes still running when the harness exits (interrupted) are killed, so none keeps
    // a port or a consumer.
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
            .addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "bench-node-reaper"));
    }

    private final String name;

    private final int port;

    private final Path log;

    private final Process process;

    private final long startedNanos;

    private NodeJvm(String name, int port, Path log, Process process, long startedNanos) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.process = process;
        this.startedNanos = startedNanos;
    }

    /**
     * @return the node jar, or why there is none (the reason becomes the pending row of
     * the table)
     */
    public static Optional<Path> findJar(String option, StringBuilder whyNot) {
        Path jar = option.isEmpty() ? builtJar() : Path.of(option);
        if (jar == null || !Files.isRegularFile(jar)) {
            whyNot.append("no node jar: target/varpulis-cluster-*.jar was not built (./mvnw package failed or was "
                    + "not run)");
            return Optional.empty();
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            if (file.getManifest() == null || file.getManifest().getMainAttributes().getValue("Start-Class") == null) {
                whyNot.append(jar).append(" is not an executable Spring Boot jar (no Start-Class)");
                return Optional.empty();
            }
        }
        catch (IOException e) {
            whyNot.append("cannot read ").append(jar).append(": ").append(e.getMessage());
            return Optional.empty();
        }
        return Optional.of(jar);
    }

    /**
     * Launches a node; the start time is taken just before the JVM is forked.
     * @param name its name (log file, messages)
     * @param jvmFlags JVM flags
     * @param args Spring arguments ({@code --key=value}), role and identity included
     */
    public static NodeJvm start(Path jar, String name, List<String> jvmFlags, List<String> args, String natsUrl,
            Path logDir) throws IOException {
        int port = LoopbackPorts.next();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(args);
        command.addAll(List.of("--varpulis.nats.url=" + natsUrl, "--varpulis.nats.substrate=jetstream",
                "--server.address=127.0.0.1", "--server.port=" + port, "--spring.main.banner-mode=off",
                TestCredentials.PASSWORD_ARGUMENT));
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        long started = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
        LIVE.add(process);
        return new NodeJvm(name, port, log, process, started);
    }

    /**
     * Polls {@code /actuator/health/readiness} every 20 ms until it answers UP.
     * @return seconds from the launch to the first UP
     * @throws IllegalStateException when the node exits or is not ready within
     * {@link #READY_TIMEOUT}
     */
    public double awaitReady() throws InterruptedException {
        HttpRequest readiness = HttpRequest.newBuilder(uri("/actuator/health/readiness"))
            .timeout(Duration.ofSeconds(1))
            .build();
        long deadline = startedNanos + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        name + " exited with " + process.exitValue() + " before readiness " + "UP; see " + log);
            }
            try {
                HttpResponse<String> response = HTTP.send(readiness, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200 && response.body().contains("\"UP\"")) {
                    return (System.nanoTime() - startedNanos) / 1e9;
                }
            }
            catch (IOException notYet) {
                // Not listening yet.
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException(name + " was not ready within " + READY_TIMEOUT.toSeconds() + " s; see " + log);
    }

    /**
     * @param path a path on the node's HTTP port
     * @return the response body
     * @throws IllegalStateException on a status other than 2xx
     */
    public String http(String path, String jsonBody) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", TestCredentials.adminBasic());
        if (jsonBody != null) {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(jsonBody));
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException((jsonBody == null ? "GET " : "POST ") + path + " on " + name + " answered "
                    + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /**
     * @param key a /proc/PID/status key: VmRSS, VmHWM
     * @return its value in kB, -1 when the process is gone
     */
    long statusKb(String key) {
        return procStatusKb(Path.of("/proc", String.valueOf(process.pid()), "status"), key);
    }

    /**
     * Runs a full GC in the node ({@code jcmd PID GC.run}), so that the heap it reports
     * next is what is live.
     */
    void fullGc() throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process gc = new ProcessBuilder(jcmd.toString(), String.valueOf(process.pid()), "GC.run")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
        if (!gc.waitFor(30, TimeUnit.SECONDS)) {
            gc.destroyForcibly();
            throw new IllegalStateException("jcmd GC.run on " + name + " did not finish within 30 s");
        }
    }

    String name() {
        return name;
    }

    /** Kills the node with SIGKILL: nothing is shut down, as when a machine dies. */
    void kill() {
        Processes.kill(process);
        LIVE.remove(process);
    }

    /** Stops the node with SIGTERM (graceful), then SIGKILL after 30 s. */
    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(30));
        LIVE.remove(process);
    }

    static long procStatusKb(Path status, String key) {
        return Machine.procLine(status, key + ":").map(v -> Long.parseLong(v.replaceAll("\\D", ""))).orElse(-1L);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static Path builtJar() {
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(Path.of("target"), "varpulis-cluster-*.jar")) {
            for (Path jar : jars) {
                return jar;
            }
            return null;
        }
        catch (IOException e) {
            return null;
        }
    }

}
