package io.varpulis.test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Stopping the processes a test or benchmark started: SIGTERM with a grace period, then SIGKILL.
 */
public final class Processes {

    /** How long a SIGKILLed process may take to be reaped. */
    private static final Duration REAP = Duration.ofSeconds(10);

    private Processes() {
    }

    /**
     * SIGKILL: the process dies at once, nothing shut down, as when its machine dies.
     *
     * @param process the process
     */
    public static void kill(Process process) {
        process.destroyForcibly();
        try {
            process.waitFor(REAP.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * SIGTERM (a graceful shutdown), then SIGKILL when it has not exited within the grace period.
     *
     * @param process the process
     * @param grace   how long it may take to shut down
     */
    public static void stop(Process process, Duration grace) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
