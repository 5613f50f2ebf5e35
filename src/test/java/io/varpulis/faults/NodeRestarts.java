package io.varpulis.faults;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Stops and starts again the demo's node processes from outside the demo, as a Kubernetes
 * rolling update or a crash-looping pod does (issue 43's soak): a node is started again
 * with the command line, environment, working directory and log of the process it
 * replaces, read from {@code /proc/PID} before it goes (root, as the fault suite runs).
 * The demo keeps asking the node on its port, which the command line keeps. The processes
 * started here are this harness's children: {@link #close()} stops them (SIGTERM, then
 * SIGKILL) once the demo ended, as the demo stops its own.
 */
final class NodeRestarts implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static final Duration READY = Duration.ofSeconds(120);

    private final List<Process> started = new ArrayList<>();

    /** What runs a node process again: read from /proc before it goes. */
    record Launch(List<String> command, Map<String, String> environment, Path directory, Path log, int port) {
    }

    /**
     * @param pid a running node's process id
     * @return how to start it again
     * @throws IOException when /proc does not say (the process is gone)
     */
    static Launch launchOf(long pid) throws IOException {
        Path proc = Path.of("/proc", String.valueOf(pid));
        List<String> command = Arrays
            .asList(Files.readString(proc.resolve("cmdline"), StandardCharsets.UTF_8).split("\0"));
        Map<String, String> environment = new HashMap<>();
        for (String variable : Files.readString(proc.resolve("environ"), StandardCharsets.UTF_8).split("\0")) {
            int equals = variable.indexOf('=');
            if (equals > 0) {
                environment.put(variable.substring(0, equals), variable.substring(equals + 1));
            }
        }
        int port = command.stream()
            .filter(a -> a.startsWith("--server.port="))
            .map(a -> Integer.parseInt(a.substring("--server.port=".length())))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("pid " + pid + " has no --server.port: not a demo node"));
        return new Launch(List.copyOf(command), Map.copyOf(environment), Files.readSymbolicLink(proc.resolve("cwd")),
                Files.readSymbolicLink(proc.resolve("fd").resolve("1")), port);
    }

    /**
     * Sends a signal and waits until the process is gone.
     * @param pid the process
     * @param signal {@code KILL} or {@code TERM}
     * @param timeout how long to wait; then SIGKILL
     * @return how long it took to exit, ms
     */
    static long stop(long pid, String signal, Duration timeout) throws IOException, InterruptedException {
        long sent = System.nanoTime();
        Tools.signal(pid, signal);
        var handle = ProcessHandle.of(pid);
        if (handle.isPresent()) {
            try {
                handle.get().onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException late) {
                Tools.signal(pid, "KILL");
                handle.get().onExit().join();
            }
        }
        return (System.nanoTime() - sent) / 1_000_000;
    }

    /**
     * Starts a node again and waits until its readiness is UP.
     * @param launch how it ran
     * @return the new process
     * @throws IllegalStateException when it exits or is not ready within 120 s
     */
    Process start(Launch launch) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(launch.command()).directory(launch.directory().toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(launch.log().toFile()));
        builder.environment().clear();
        builder.environment().putAll(launch.environment());
        Process process = builder.start();
        synchronized (this) {
            started.add(process);
        }
        long deadline = System.nanoTime() + READY.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "a node started again exited with status " + process.exitValue() + "; see " + launch.log());
            }
            try {
                HttpResponse<Void> ready = HTTP.send(HttpRequest
                    .newBuilder(URI.create("http://127.0.0.1:" + launch.port() + "/actuator/health/readiness"))
                    .timeout(Duration.ofSeconds(2))
                    .build(), HttpResponse.BodyHandlers.discarding());
                if (ready.statusCode() == 200) {
                    return process;
                }
            }
            catch (IOException notYet) {
                // Not listening yet.
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(
                "a node started again was not ready within " + READY.toSeconds() + " s; see " + launch.log());
    }

    /** Stops the nodes started here: SIGTERM, SIGKILL after 30 s. */
    @Override
    public synchronized void close() throws InterruptedException {
        for (Process process : started) {
            process.destroy();
        }
        for (Process process : started) {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
        started.clear();
    }

}
