package io.varpulis.test;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Runs a real nats-server for a test: the installed {@code nats-server} binary (PATH,
 * /usr/sbin, /usr/local/bin, /opt/homebrew/bin), or else a {@code nats:2.12} Docker
 * container. With neither, starting fails: a broker test never passes by abstaining.
 *
 * <pre>{@code
 * &#64;RegisterExtension
 * static final NatsServerExtension nats = NatsServerExtension.jetStream();
 * }</pre>
 *
 * <p>
 * As a {@code static} field one server serves the whole class (started before all,
 * stopped and its temp dirs deleted after all); as an instance field each test gets a
 * fresh server. It is also {@link AutoCloseable} for use outside JUnit's lifecycle.
 *
 * <p>
 * The server listens on 127.0.0.1 only, on a free port chosen at the first start and kept
 * across {@link #stop()}/{@link #start()}, as is the JetStream store. On the Docker path
 * the store lives inside the container ({@link #storeDir()} is then a container path) and
 * a local Docker daemon is needed (bind mounts).
 */
public final class NatsServerExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, AutoCloseable {

    /**
     * How long {@link #start()} waits for the INFO line before it fails; a local server
     * needs well under 1 s.
     */
    public static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

    /**
     * How long {@link #stop()} lets the server shut down (flush the store) after SIGTERM
     * before killing it.
     */
    public static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private static final String INSTALL_HINT = "install nats-server (Debian/Ubuntu: apt-get install nats-server; "
            + "macOS: brew install nats-server) or start Docker";

    private final boolean jetStream;

    private String configText;

    private boolean classScoped;

    private Path root;

    private int port;

    private NatsServerBackend backend;

    private NatsServerExtension(boolean jetStream) {
        this.jetStream = jetStream;
    }

    /** A server started with {@code -js} and a store in a temp dir. */
    public static NatsServerExtension jetStream() {
        return new NatsServerExtension(true);
    }

    /** A server without JetStream: JetStream API requests get no responders. */
    public static NatsServerExtension coreOnly() {
        return new NatsServerExtension(false);
    }

    /**
     * Extra nats-server configuration ({@code authorization {...}}, {@code tls {...}},
     * {@code jetstream { max_file_store: 64MB }}), written to a file passed with
     * {@code -c}. The extension's {@code -a}, {@code -p}, {@code -js} and {@code -sd}
     * flags override the same settings in it. Takes effect at the next {@link #start()}.
     * @return this extension
     */
    public synchronized NatsServerExtension withConfig(String confText) {
        this.configText = Objects.requireNonNull(confText, "confText");
        return this;
    }

    /**
     * {@code nats://127.0.0.1:<port>}.
     * @throws IllegalStateException before the first start
     */
    public String url() {
        return "nats://127.0.0.1:" + port();
    }

    /**
     * The loopback port clients connect to, the same across restarts.
     * @throws IllegalStateException before the first start
     */
    public synchronized int port() {
        if (port == 0) {
            throw new IllegalStateException("nats-server has not been started yet");
        }
        return port;
    }

    /**
     * The JetStream store dir given with {@code -sd} (a container path on the Docker
     * path); kept across restarts.
     */
    public synchronized Path storeDir() {
        return backend instanceof NatsServerContainer ? Path.of(NatsServerContainer.STORE_DIR)
                : root().resolve("store");
    }

    /** Whether this server was asked for JetStream ({@link #jetStream()}). */
    public boolean jetStreamEnabled() {
        return jetStream;
    }

    /**
     * A temp dir for the test's own files (certificates, creds), created on first call,
     * so it can be filled before the server starts; deleted with the server's other temp
     * files after the class (or test).
     */
    public synchronized Path workDir() {
        return root().resolve("work");
    }

    /**
     * Starts the server (again on the same port and store) and returns once it accepts
     * clients. No-op when running.
     * @throws IllegalStateException when the server exits or is not ready within
     * {@link #STARTUP_TIMEOUT} (the message holds its log tail), or when neither
     * nats-server nor Docker is available
     * @throws UncheckedIOException when the temp files cannot be written
     */
    public synchronized void start() {
        if (backend != null && backend.isRunning()) {
            return;
        }
        try {
            Files.writeString(root().resolve("nats-server.conf"),
                    configText == null ? "# no extra configuration\n" : configText, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot write the nats-server config under " + root, e);
        }
        if (backend == null) {
            port = LoopbackPorts.next();
            backend = createBackend();
        }
        backend.start(STARTUP_TIMEOUT);
    }

    /**
     * Stops the server: SIGTERM, up to {@link #STOP_GRACE}, then SIGKILL. Keeps port and
     * store. No-op when stopped.
     */
    public synchronized void stop() {
        if (backend != null) {
            backend.stop(STOP_GRACE);
        }
    }

    /**
     * Kills the server with SIGKILL (no clean shutdown) and waits until it is gone. Keeps
     * port and store.
     */
    public synchronized void kill() {
        if (backend != null) {
            backend.kill();
        }
    }

    /**
     * {@link #stop()} then {@link #start()}.
     * @throws IllegalStateException as {@link #start()}
     */
    public synchronized void restart() {
        stop();
        start();
    }

    /**
     * Kills the server and deletes its temp dirs (store, work dir, log). A later
     * {@link #start()} begins afresh, on a new port.
     * @throws UncheckedIOException when the temp dirs cannot be deleted
     */
    @Override
    public synchronized void close() {
        if (backend != null) {
            backend.close();
            backend = null;
        }
        port = 0;
        if (root != null) {
            deleteTree(root);
            root = null;
        }
    }

    /** Starts the class's server. */
    @Override
    public void beforeAll(ExtensionContext context) {
        classScoped = true;
        start();
    }

    /** Stops the class's server and deletes its temp dirs. */
    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /**
     * Starts a per-test server when registered on an instance field (JUnit calls no
     * beforeAll for those).
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        if (!classScoped) {
            start();
        }
    }

    /** Stops a per-test server and deletes its temp dirs. */
    @Override
    public void afterEach(ExtensionContext context) {
        if (!classScoped) {
            close();
        }
    }

    private NatsServerBackend createBackend() {
        Path config = root().resolve("nats-server.conf");
        Optional<Path> binary = NatsServerProcess.findBinary();
        if (binary.isPresent()) {
            return new NatsServerProcess(binary.get(), flags("127.0.0.1", port, storeDir(), config), port, jetStream,
                    root().resolve("nats-server.log"));
        }
        if (NatsServerContainer.dockerAvailable()) {
            return new NatsServerContainer(flags("0.0.0.0", 4222, Path.of(NatsServerContainer.STORE_DIR), config), port,
                    jetStream, root());
        }
        throw new IllegalStateException("no nats-server on PATH, in /usr/sbin, /usr/local/bin or /opt/homebrew/bin, "
                + "and no Docker daemon: " + INSTALL_HINT);
    }

    private List<String> flags(String address, int listenPort, Path store, Path config) {
        List<String> flags = new ArrayList<>(List.of("-a", address, "-p", String.valueOf(listenPort)));
        if (jetStream) {
            flags.addAll(List.of("-js", "-sd", store.toString()));
        }
        // Always passed (an empty file when withConfig was not used) so withConfig can
        // change it between restarts.
        flags.addAll(List.of("-c", config.toString()));
        return flags;
    }

    private Path root() {
        if (root == null) {
            try {
                root = Files.createTempDirectory("nats-server-");
                Files.createDirectories(root.resolve("work"));
            }
            catch (IOException e) {
                throw new UncheckedIOException("cannot create a temp dir for nats-server", e);
            }
        }
        return root;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

}
