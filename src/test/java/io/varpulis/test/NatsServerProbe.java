package io.varpulis.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Readiness check shared by both backends: a server is ready when it greets a TCP client
 * with its INFO line.
 */
final class NatsServerProbe {

    /**
     * The server binds 127.0.0.1 (not whatever localhost resolves to), so probe exactly
     * that.
     */
    static final InetAddress LOOPBACK = loopback();

    private static final Pattern JETSTREAM_ON = Pattern.compile("\"jetstream\"\\s*:\\s*true");

    // Short per-attempt timeouts so a dead or half-started server costs one poll, not the
    // whole budget.
    private static final int CONNECT_TIMEOUT_MILLIS = 250;

    private static final int READ_TIMEOUT_MILLIS = 1000;

    private static final long POLL_MILLIS = 50;

    private NatsServerProbe() {
    }

    /**
     * Polls 127.0.0.1:{@code port} until the server sends {@code INFO {...}} (with
     * {@code "jetstream":true} when {@code jetStream}); a Docker port proxy that accepts
     * and then closes does not count.
     * @param alive false once the server has exited: stops waiting early
     * @param diagnostics the command and log tail, appended to the failure message
     * @return the INFO line
     * @throws IllegalStateException when the server exits or is not ready within
     * {@code timeout}
     */
    static String awaitInfo(int port, boolean jetStream, Duration timeout, BooleanSupplier alive,
            Supplier<String> diagnostics) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String lastSeen = "no connection yet";
        while (System.nanoTime() < deadline) {
            if (!alive.getAsBoolean()) {
                throw failure("nats-server on port " + port + " exited during startup", diagnostics);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(LOOPBACK, port), CONNECT_TIMEOUT_MILLIS);
                socket.setSoTimeout(READ_TIMEOUT_MILLIS);
                String line = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
                if (line != null && line.startsWith("INFO ") && (!jetStream || JETSTREAM_ON.matcher(line).find())) {
                    return line;
                }
                lastSeen = line == null ? "connection closed before INFO" : "first line: " + line;
            }
            catch (IOException e) {
                lastSeen = e.toString();
            }
            sleep();
        }
        throw failure("nats-server on port " + port + " was not ready" + (jetStream ? " with JetStream" : "")
                + " within " + timeout.toMillis() + " ms (" + lastSeen + ")", diagnostics);
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress(new byte[] { 127, 0, 0, 1 });
        }
        catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen: a 4-byte address is
                                                // always valid
        }
    }

    private static IllegalStateException failure(String what, Supplier<String> diagnostics) {
        return new IllegalStateException(what + "\n" + diagnostics.get());
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL_MILLIS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for nats-server", e);
        }
    }

}
