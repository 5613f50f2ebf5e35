package io.varpulis.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Stopping the processes a test or benchmark started, with the processes they started (a
 * JVM run under {@code faketime} is that wrapper's child, and outlived it as an orphan
 * when only the wrapper was signalled): SIGTERM with a grace period, then SIGKILL.
 */
public final class Processes {

    /** How long a SIGKILLed process may take to be reaped. */
    private static final Duration REAP = Duration.ofSeconds(10);

    private Processes() {
    }

    /**
     * SIGKILL: the process dies at once, nothing shut down, as when its machine dies.
     * @param process the process
     */
    public static void kill(Process process) {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
        awaitExit(process, descendants, REAP);
    }

    /**
     * SIGTERM (a graceful shutdown), then SIGKILL when it has not exited within the grace
     * period; the same for the processes it started.
     * @param process the process
     * @param grace how long it may take to shut down
     */
    public static void stop(Process process, Duration grace) {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        descendants.forEach(ProcessHandle::destroy);
        if (!awaitExit(process, descendants, grace)) {
            kill(process);
            descendants.forEach(ProcessHandle::destroyForcibly);
        }
    }

    /**
     * @return whether the process and every descendant exited within the time
     */
    private static boolean awaitExit(Process process, List<ProcessHandle> descendants, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        try {
            if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            for (ProcessHandle descendant : descendants) {
                long left = deadline - System.nanoTime();
                descendant.onExit().get(Math.max(0, left), TimeUnit.NANOSECONDS);
            }
            return true;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

}
