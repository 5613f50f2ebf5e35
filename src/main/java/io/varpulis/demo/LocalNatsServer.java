package io.varpulis.demo;

import io.varpulis.support.NatsServerBinaries;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code nats-server -js} the demo starts for itself when nothing listens at the
 * configured URL: loopback only, a free port, its store in a temporary directory that is
 * deleted when it stops. The binary: {@code
 * VARPULIS_NATS_SERVER}'s, else the 2.12 build {@code scripts/install-nats-server.sh}
 * made, else one on PATH ({@link NatsServerBinaries#findPreferring}).
 */
final class LocalNatsServer implements AutoCloseable {

    /**
     * The release line production runs, which the demo prefers when
     * scripts/install-nats-server.sh built it.
     */
    static final String PRODUCTION_LINE = "2.12";

    private final Process process;

    private final Path directory;

    private final int port;

    private final String binary;

    private final String version;

    private LocalNatsServer(Process process, Path directory, int port, String binary, String version) {
        this.process = process;
        this.directory = directory;
        this.port = port;
        this.binary = binary;
        this.version = version;
    }

    /**
     * Starts a server and waits until it accepts connections (10 s at most).
     * @return the running server
     * @throws IOException when no nats-server binary is installed or it did not start
     */
    static LocalNatsServer start() throws IOException, InterruptedException {
        String binary;
        try {
            binary = NatsServerBinaries.findPreferring(PRODUCTION_LINE)
                .map(Path::toString)
                .orElseThrow(() -> new IOException(
                        "no nats-server found: install one (scripts/install-nats-server.sh; Debian/Ubuntu: apt-get "
                                + "install nats-server; macOS: brew install nats-server), set "
                                + NatsServerBinaries.VARIABLE + " to its path, or point --nats-url at a JetStream "
                                + "server"));
        }
        catch (IllegalStateException e) {
            throw new IOException(e.getMessage(), e);
        }
        Path directory = Files.createTempDirectory("varpulis-demo-nats-" + ProcessHandle.current().pid() + "-");
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Process process = new ProcessBuilder(binary, "-a", "127.0.0.1", "-p", Integer.toString(port), "-js", "-sd",
                directory.resolve("jetstream").toString())
            .redirectErrorStream(true)
            .redirectOutput(directory.resolve("nats-server.log").toFile())
            .start();
        LocalNatsServer server = new LocalNatsServer(process, directory, port, binary, version(binary));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                server.close();
                throw new IOException("nats-server exited at startup; see " + directory.resolve("nats-server.log"));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return server;
            }
            catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        server.close();
        throw new IOException("nats-server did not accept connections on 127.0.0.1:" + port + " within 10 s");
    }

    /**
     * {@code nats-server --version}'s answer ({@code v2.12.15}), or
     * {@code unknown version}.
     */
    private static String version(String binary) {
        try {
            Process asked = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
            String answer = new String(asked.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            asked.waitFor(5, TimeUnit.SECONDS);
            int v = answer.lastIndexOf(' ');
            return answer.isEmpty() ? "unknown version" : answer.substring(v + 1);
        }
        catch (IOException e) {
            return "unknown version";
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown version";
        }
    }

    /**
     * @return which binary runs and its version, with a hint when it is older than the
     * 2.12 production runs, for the run's first lines
     */
    String describe() {
        String[] parts = version.replaceFirst("^v", "").split("\\.");
        boolean older = parts.length >= 2 && parts[0].matches("\\d+") && parts[1].matches("\\d+")
                && (Integer.parseInt(parts[0]) < 2
                        || Integer.parseInt(parts[0]) == 2 && Integer.parseInt(parts[1]) < 12);
        return binary + " " + version + (older ? " (production runs 2.12: scripts/install-nats-server.sh builds it, "
                + NatsServerBinaries.VARIABLE + " names the binary to use)" : "");
    }

    /**
     * @return {@code nats://127.0.0.1:<port>}
     */
    String url() {
        return "nats://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (IOException ignored) {
            // A temporary directory left behind is harmless.
        }
    }

}
