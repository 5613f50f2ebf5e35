package io.varpulis.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Loopback ports for the servers tests start (nats-server, Prometheus, Zipkin, nodes),
 * that no other process takes between the choice and the bind.
 * <p>
 * A port chosen by binding port 0 and closing it is only free for a moment: another test
 * JVM running beside this one (CI runs two broker passes at once) can be handed the same
 * port by the kernel before our server binds it, and a cluster whose third server cannot
 * bind its route port has no majority to place an R3 stream on. So ports come from below
 * the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}), which it never
 * hands out for port 0 or outgoing connections, in blocks of {@value #BLOCK} that one JVM
 * claims with a file lock under the temp directory; the lock ends with the JVM, even on
 * kill -9. A port something already listens on is skipped. Ports are kept by the JVM for
 * its life, so a server restarted on its port finds it free.
 */
public final class LoopbackPorts {

    /** Ports per claimed block. */
    static final int BLOCK = 100;

    private static final int LOWEST = 10_000;

    /**
     * Shared by every clone and build of this project on the machine (surefire points
     * {@code java.io.tmpdir} into each build's target).
     */
    private static final Path LOCKS = Path.of(System.getenv().getOrDefault("TMPDIR", "/tmp"), "varpulis-test-ports");

    private static final List<FileLock> claimed = new ArrayList<>();

    private static int next;

    private static int end;

    private LoopbackPorts() {
    }

    /**
     * @return a port on 127.0.0.1 nothing listens on, that no other test JVM of this
     * project will hand out
     * @throws UncheckedIOException when no block can be claimed or no port of it is free
     */
    public static synchronized int next() {
        while (true) {
            if (next >= end) {
                claimBlock();
            }
            int port = next++;
            if (bindable(port)) {
                return port;
            }
        }
    }

    /**
     * @param count how many
     * @return that many distinct ports, as {@link #next()}
     */
    public static int[] next(int count) {
        int[] ports = new int[count];
        for (int i = 0; i < count; i++) {
            ports[i] = next();
        }
        return ports;
    }

    private static void claimBlock() {
        int highest = ephemeralLow() - 1;
        try {
            Files.createDirectories(LOCKS);
            for (int first = LOWEST; first + BLOCK - 1 <= highest; first += BLOCK) {
                FileLock lock = tryLock(LOCKS.resolve("block-" + first + ".lock"));
                if (lock != null) {
                    claimed.add(lock);
                    next = first;
                    end = first + BLOCK;
                    return;
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot claim a block of test ports under " + LOCKS, e);
        }
        throw new UncheckedIOException(new IOException("every block of test ports between " + LOWEST + " and " + highest
                + " is claimed by another process (locks under " + LOCKS + ")"));
    }

    private static FileLock tryLock(Path file) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
            }
            return lock;
        }
        catch (OverlappingFileLockException e) {
            // this JVM holds it already: a block it used up
            channel.close();
            return null;
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            return true;
        }
        catch (IOException e) {
            return false;
        }
    }

    /**
     * @return the lowest port of the kernel's ephemeral range; 32768 (Linux's default)
     * when it cannot be read
     */
    private static int ephemeralLow() {
        try {
            return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                .get(0)
                .trim()
                .split("\\s+")[0]);
        }
        catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

}
