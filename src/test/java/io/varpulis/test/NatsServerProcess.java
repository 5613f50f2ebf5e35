package io.varpulis.test;

import io.varpulis.support.NatsServerBinaries;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** A nats-server binary run as a child process, its output appended to a log file. */
final class NatsServerProcess implements NatsServerBackend {

    private static final int LOG_TAIL_LINES = 30;

    // Servers still alive when the JVM exits (a test run that crashed or was interrupted)
    // are killed, so no
    // orphan keeps a port or a store. A JVM killed with SIGKILL cannot run this; nothing
    // in Java can.
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
            .addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "nats-server-reaper"));
    }

    private final List<String> command;

    private final int port;

    private final boolean jetStream;

    private final Path logFile;

    private Process process;

    /**
     * @param flags nats-server flags, including {@code -a 127.0.0.1 -p port}
     * @param logFile receives stdout and stderr of every start, appended
     */
    NatsServerProcess(Path binary, List<String> flags, int port, boolean jetStream, Path logFile) {
        this.command = new ArrayList<>(flags.size() + 1);
        this.command.add(binary.toString());
        this.command.addAll(flags);
        this.port = port;
        this.jetStream = jetStream;
        this.logFile = logFile;
    }

    /**
     * The nats-server the tests run: see {@link NatsServerBinaries#find()}
     * ({@code VARPULIS_NATS_SERVER}).
     */
    static Optional<Path> findBinary() {
        return NatsServerBinaries.find();
    }

    @Override
    public void start(Duration timeout) {
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
        }
        LIVE.add(process);
        try {
            NatsServerProbe.awaitInfo(port, jetStream, timeout, process::isAlive, this::diagnostics);
        }
        catch (RuntimeException e) {
            kill();
            throw e;
        }
    }

    @Override
    public void stop(Duration grace) {
        if (process == null) {
            return;
        }
        process.destroy();
        boolean exited;
        try {
            exited = process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exited = false;
        }
        if (exited) {
            forget();
        }
        else {
            kill();
        }
    }

    @Override
    public void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(); // SIGKILL cannot be ignored, so this returns promptly
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        forget();
    }

    /**
     * Sends a signal to the server process ({@code STOP} pauses it as a frozen VM would:
     * its sockets stay open and say nothing; {@code CONT} resumes it).
     * @param signal a signal name for kill(1)
     * @throws IllegalStateException when the server is not running or kill fails
     */
    void signal(String signal) {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("nats-server is not running: cannot send SIG" + signal);
        }
        try {
            int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO()
                .start()
                .waitFor();
            if (exit != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " exited " + exit);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal, e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal, e);
        }
    }

    @Override
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * @return the running server's process id (the fault suite pauses it, slows its
     * fsyncs)
     * @throws IllegalStateException when it is not running
     */
    long pid() {
        if (process == null) {
            throw new IllegalStateException("the nats-server is not running");
        }
        return process.pid();
    }

    @Override
    public void close() {
        kill();
    }

    private void forget() {
        LIVE.remove(process);
        process = null;
    }

    private String diagnostics() {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return "command: " + String.join(" ", command) + "\nlast lines of " + logFile + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        }
        catch (IOException e) {
            return "(cannot read " + logFile + ": " + e + ")";
        }
    }

}
