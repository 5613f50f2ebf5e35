package io.varpulis.test;

import java.time.Duration;

/**
 * One way of running a nats-server for {@link NatsServerExtension}: a local process or a
 * Docker container. The port and the JetStream store survive {@link #stop} /
 * {@link #start}; {@link #close} releases both.
 */
interface NatsServerBackend {

    /**
     * Starts the server (again) and returns once it has sent its INFO line.
     * @throws IllegalStateException when it exits or is not ready within {@code timeout};
     * the message holds the log tail
     */
    void start(Duration timeout);

    /**
     * Asks the server to shut down (SIGTERM), waits up to {@code grace}, then kills it.
     * No-op when not running.
     */
    void stop(Duration grace);

    /** Kills the server (SIGKILL) and waits until it is gone. No-op when not running. */
    void kill();

    /** Whether the server process or container is alive. */
    boolean isRunning();

    /**
     * Kills the server if needed and releases what {@link #start} allocated (the
     * container, for Docker).
     */
    void close();

}
