package io.varpulis.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The system tools the process and server faults use, run as commands:
 * {@code kill -STOP/-CONT} (a paused process, as a long GC pause or a frozen VM),
 * strace's fault injection (a slow disk: every fsync delayed), libfaketime (a clock
 * ahead) and iptables (a partition). scripts/faults.sh installs them (Debian's strace,
 * faketime, iptables) when missing.
 */
final class Tools {

    /**
     * Debian's libfaketime, which moves a process's wall clock (not its monotonic clock).
     */
    static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    private Tools() {
    }

    /**
     * Pauses or resumes a process and all its threads.
     * @param pid the process
     * @param signal {@code STOP} or {@code CONT}
     * @throws IllegalStateException when {@code kill} fails (the process is gone)
     */
    static void signal(long pid, String signal) throws IOException, InterruptedException {
        run(List.of("kill", "-" + signal, String.valueOf(pid)));
    }

    /**
     * Delays every fsync and fdatasync of a running process (and all its threads) by
     * {@code micros}, with strace's fault injection
     * ({@code -e inject=fsync,fdatasync:delay_enter=N}, strace 4.22 and later), until the
     * returned process is destroyed (strace then detaches and the process runs at full
     * speed again).
     * @param pid the process, a nats-server
     * @param micros the delay of each call, microseconds
     * @param log where strace's own output goes
     * @return strace, attached
     */
    static Process slowFsync(long pid, long micros, Path log) throws IOException, InterruptedException {
        Process strace = new ProcessBuilder("strace", "-f", "-qq", "-e", "trace=fsync,fdatasync", "-e",
                "inject=fsync,fdatasync:delay_enter=" + micros, "-o", "/dev/null", "-p", String.valueOf(pid))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
        Runtime.getRuntime().addShutdownHook(new Thread(strace::destroy));
        Thread.sleep(1000);
        if (!strace.isAlive()) {
            throw new IllegalStateException("strace could not attach to pid " + pid + ": "
                    + Files.readString(log, StandardCharsets.UTF_8).trim());
        }
        return strace;
    }

    /**
     * @param dir where each node's libfaketime file goes ({@code <dir>/<node name>}); a
     * missing file is the real clock, {@code +30s} in it moves that node's clock 30 s
     * ahead within a second
     * @return the demo's environment that runs every node under libfaketime
     * ({@code VARPULIS_DEMO_NODE_ENV}), monotonic clocks untouched (the JVM's timers and
     * waits stay right); without {@code FAKETIME_FORCE_MONOTONIC_FIX=0} libfaketime
     * 0.9.10's monotonic fix of {@code pthread_cond_timedwait} all but stops a JVM
     * starting (a node printed nothing in 120 s)
     */
    static String fakeTimeNodeEnv(Path dir) {
        if (!Files.isReadable(LIBFAKETIME)) {
            throw new IllegalStateException(
                    LIBFAKETIME + " is missing: apt-get install -y faketime " + "(scripts/faults.sh does)");
        }
        return "LD_PRELOAD=" + LIBFAKETIME + " FAKETIME_TIMESTAMP_FILE=" + dir.resolve("{node}")
                + " FAKETIME_CACHE_DURATION=1 FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_FORCE_MONOTONIC_FIX=0";
    }

    /**
     * Runs a command to its end.
     * @param command the command
     * @return its output
     * @throws IllegalStateException when it exits non-zero or takes over 30 s
     */
    static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
        boolean ended = process.waitFor(30, TimeUnit.SECONDS);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!ended || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command)
                    + (ended ? " exited " + process.exitValue() : " did not end within 30 s") + ": " + output);
        }
        return output;
    }

}
