package io.varpulis.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on 127.0.0.1 in front of one server's route port, so that a test can cut
 * that server off from its peers without root or network namespaces: while {@link #cut()
 * cut}, every byte either way is dropped and connections are held silent (a partition,
 * not a refused connection); {@link #heal()} closes what was held, so the servers route
 * to one another afresh, and relays again.
 */
final class PartitionProxy implements AutoCloseable {

    private final ServerSocket listener;

    private final int target;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private volatile boolean cut;

    /**
     * @param port the port to listen on
     * @param target the route port to relay to
     */
    PartitionProxy(int port, int target) {
        this.target = target;
        try {
            listener = new ServerSocket();
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(NatsServerProbe.LOOPBACK, port));
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port + " for the route proxy", e);
        }
        daemon("route-proxy-" + port, this::accept);
    }

    /**
     * @return the port it listens on
     */
    int port() {
        return listener.getLocalPort();
    }

    /** Drops every byte and holds every connection silent, until {@link #heal()}. */
    void cut() {
        cut = true;
    }

    /**
     * Closes the connections held while cut (their streams lost bytes) and relays again.
     */
    void heal() {
        closeAll();
        cut = false;
    }

    @Override
    public void close() {
        try {
            listener.close();
        }
        catch (IOException ignored) {
            // Closing a listener that failed is nothing to report.
        }
        closeAll();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket from = listener.accept();
                sockets.add(from);
                if (cut) {
                    continue; // held silent: the peer sees a connection that never speaks
                }
                Socket to = new Socket(NatsServerProbe.LOOPBACK, target);
                sockets.add(to);
                daemon("route-proxy-in", () -> relay(from, to));
                daemon("route-proxy-out", () -> relay(to, from));
            }
            catch (IOException e) {
                // The listener closed, or the target refused: the peer retries its route.
            }
        }
    }

    private void relay(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (!cut) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        }
        catch (IOException closed) {
            // Either side closed: close the other too.
        }
        finally {
            quietly(from);
            quietly(to);
        }
    }

    private void closeAll() {
        sockets.forEach(PartitionProxy::quietly);
        sockets.clear();
    }

    private static void quietly(Socket socket) {
        try {
            socket.close();
        }
        catch (IOException ignored) {
            // Already closed.
        }
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

}
