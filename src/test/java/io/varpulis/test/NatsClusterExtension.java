package io.varpulis.test;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ClusterInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.support.ServerVersion;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The production topology in a test: a JetStream cluster of real nats-server processes
 * (three by default) routed to one another on 127.0.0.1, each with its own file store,
 * named {@code n1}, {@code n2}, {@code n3}. As a {@code static} field it serves the whole
 * class; it is {@link AutoCloseable} for use outside JUnit.
 *
 * <pre>{@code
 * &#64;RegisterExtension
 * static final NatsClusterExtension cluster = NatsClusterExtension.ofThree();
 * ... cluster.url() ... cluster.kill(cluster.streamLeader("VARPULIS_ROUTING")) ... cluster.start(i) ...
 * }</pre>
 *
 * <p>
 * Ports (client and route) are chosen once and kept across restarts, as are the stores,
 * so a server killed with SIGKILL and started again rejoins with its data, like a pod
 * restarted on its volume. Uses the nats-server binary of
 * {@link NatsServerProcess#findBinary()} ({@code VARPULIS_NATS_SERVER}, else PATH); there
 * is no Docker path.
 */
public final class NatsClusterExtension
        implements ExecutionCondition, BeforeAllCallback, AfterAllCallback, AutoCloseable {

    /**
     * How long {@link #start()} waits for the cluster to elect its JetStream meta leader
     * and know its peers.
     */
    public static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final int size;

    private String extraConfig = "";

    private String jetStreamConfig = "";

    private final Map<Integer, String> serverJetStreamConfig = new HashMap<>();

    private int partitionable = -1;

    private int unusedPort;

    private PartitionProxy[] proxies;

    private Path root;

    private int[] clientPorts;

    private int[] routePorts;

    private NatsServerProcess[] servers;

    private static final Map<Path, String> VERSIONS = new ConcurrentHashMap<>();

    private String oldest;

    private String oldestWhy;

    private NatsClusterExtension(int size) {
        this.size = size;
    }

    /**
     * @param version the oldest nats-server the tests can run on ({@code 2.10.0})
     * @param why what they need of it, said when the binary is older and they are skipped
     * @return this extension
     */
    public synchronized NatsClusterExtension from(String version, String why) {
        this.oldest = version;
        this.oldestWhy = why;
        return this;
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (oldest == null) {
            return ConditionEvaluationResult.enabled("any nats-server");
        }
        String version = binaryVersion();
        return new ServerVersion(version).compareTo(new ServerVersion(oldest)) < 0
                ? ConditionEvaluationResult
                    .disabled("nats-server " + version + " is older than " + oldest + ": " + oldestWhy)
                : ConditionEvaluationResult.enabled("nats-server " + version);
    }

    /** {@code 2.9.10} from {@code nats-server: v2.9.10}, asked once per binary. */
    private static String binaryVersion() {
        Path binary = NatsServerProcess.findBinary().orElseThrow(() -> new IllegalStateException("no nats-server"));
        return VERSIONS.computeIfAbsent(binary, NatsClusterExtension::askVersion);
    }

    private static String askVersion(Path binary) {
        try {
            Process process = new ProcessBuilder(binary.toString(), "--version").start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor();
            Matcher version = Pattern.compile("v(\\d+\\.\\d+\\.\\d+)").matcher(out);
            if (!version.find()) {
                throw new IllegalStateException(binary + " --version printed no version: " + out);
            }
            return version.group(1);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Three servers, the production shape (R3 streams survive one server down). */
    public static NatsClusterExtension ofThree() {
        return new NatsClusterExtension(3);
    }

    /**
     * @param config top-level nats-server configuration added to every server's file
     * ({@code max_payload: 2MB}, an {@code accounts {...}} block); takes effect for
     * servers not started yet
     * @return this extension
     */
    public synchronized NatsClusterExtension withConfig(String config) {
        this.extraConfig = config;
        return this;
    }

    /**
     * @param settings lines added inside every server's {@code jetstream {...}} block
     * ({@code sync_interval: always}, {@code max_file_store: 1GB}); takes effect for
     * servers not started yet
     * @return this extension
     */
    public synchronized NatsClusterExtension withJetStream(String settings) {
        this.jetStreamConfig = settings;
        return this;
    }

    /**
     * @param index a server, 0-based
     * @param settings lines added inside that server's {@code jetstream {...}} block
     * only, after the common ones ({@code max_file_store: 64MB} for one server with a
     * small store); takes effect if it is not started yet
     * @return this extension
     */
    public synchronized NatsClusterExtension withJetStream(int index, String settings) {
        serverJetStreamConfig.put(index, settings);
        return this;
    }

    /**
     * Routes every connection to and from one server through a {@link PartitionProxy}, so
     * that {@link #partition()} can cut it off from its peers while its clients stay
     * connected to it (the minority side of a partition). Its routes to the others and
     * theirs to it go through proxies; every server advertises a port nothing listens on,
     * so no route learned by gossip goes around a proxy.
     * @param index a server, 0-based; takes effect for servers not started yet
     * @return this extension
     */
    public synchronized NatsClusterExtension withPartitionableServer(int index) {
        this.partitionable = index;
        return this;
    }

    /**
     * Cuts the server of {@link #withPartitionableServer(int)} off from its peers: every
     * route byte is dropped.
     */
    public synchronized void partition() {
        for (PartitionProxy proxy : requireProxies()) {
            proxy.cut();
        }
    }

    /**
     * Ends {@link #partition()}: the held routes are closed and the servers route to one
     * another again.
     */
    public synchronized void heal() {
        for (PartitionProxy proxy : requireProxies()) {
            proxy.heal();
        }
    }

    /**
     * @param index a server, 0-based
     * @return its process id
     * @throws IllegalStateException when it is not running
     */
    public synchronized long pid(int index) {
        if (!isRunning(index)) {
            throw new IllegalStateException(name(index) + " is not running");
        }
        return servers[index].pid();
    }

    /**
     * @return the number of servers
     */
    public int size() {
        return size;
    }

    /**
     * @return {@code nats://127.0.0.1:p1,nats://127.0.0.1:p2,...}, the value for
     * {@code varpulis.nats.url}
     */
    public String url() {
        return IntStream.range(0, size).mapToObj(this::url).collect(Collectors.joining(","));
    }

    /**
     * @param index a server, 0-based
     * @return its client URL
     */
    public String url(int index) {
        return "nats://127.0.0.1:" + clientPorts()[index];
    }

    /**
     * @return the server name of each index: {@code n1}, {@code n2}, ...
     */
    public String name(int index) {
        return "n" + (index + 1);
    }

    /**
     * Starts every server that is not running and waits until the cluster has a JetStream
     * meta leader.
     * @throws IllegalStateException when a server does not start or no meta leader is
     * elected in time
     */
    public synchronized void start() {
        for (int i = 0; i < size; i++) {
            startServer(i);
        }
        awaitMetaLeader();
    }

    /**
     * Starts one server (again, on its port and store) and returns once it accepts
     * clients; it rejoins the cluster and catches its streams up on its own.
     * @param index a server, 0-based
     */
    public synchronized void start(int index) {
        startServer(index);
    }

    /**
     * Kills one server with SIGKILL (no clean shutdown, no lame duck mode).
     * @param index a server, 0-based
     */
    public synchronized void kill(int index) {
        if (servers != null && servers[index] != null) {
            servers[index].kill();
        }
    }

    /**
     * Stops one server gracefully (SIGTERM, then SIGKILL after 5 s).
     * @param index a server, 0-based
     */
    public synchronized void stop(int index) {
        if (servers != null && servers[index] != null) {
            servers[index].stop(NatsServerExtension.STOP_GRACE);
        }
    }

    /**
     * Pauses one server with SIGSTOP, as a frozen VM or a long stall would: its
     * connections stay open and silent. A paused server's peers lose it; two paused
     * servers of three leave the third without a majority.
     * @param index a server, 0-based
     */
    public synchronized void pause(int index) {
        servers[index].signal("STOP");
    }

    /**
     * Resumes a server paused by {@link #pause(int)} (SIGCONT).
     * @param index a server, 0-based
     */
    public synchronized void resume(int index) {
        servers[index].signal("CONT");
    }

    /**
     * @param index a server, 0-based
     * @return whether its process is alive
     */
    public synchronized boolean isRunning(int index) {
        return servers != null && servers[index] != null && servers[index].isRunning();
    }

    /**
     * Asks a running server which server leads a stream's raft group.
     * @param stream a stream name
     * @return the leader's index, 0-based
     * @throws IllegalStateException when no running server answers or the stream has no
     * leader now
     */
    public int streamLeader(String stream) {
        return leaderIndex(jsm -> jsm.getStreamInfo(stream).getClusterInfo(), "stream " + stream);
    }

    /**
     * @param stream a stream name
     * @param durable a durable consumer on it
     * @return the index of the server that leads the consumer's raft group
     */
    public int consumerLeader(String stream, String durable) {
        return leaderIndex(jsm -> jsm.getConsumerInfo(stream, durable).getClusterInfo(),
                "consumer " + durable + " on " + stream);
    }

    /** Starts the cluster before the class's tests. */
    @Override
    public void beforeAll(ExtensionContext context) {
        start();
    }

    /** Kills every server and deletes the stores. */
    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /**
     * Kills every server and deletes its temp dirs; a later {@link #start()} begins
     * afresh on new ports.
     */
    @Override
    public synchronized void close() {
        if (servers != null) {
            for (NatsServerProcess server : servers) {
                if (server != null) {
                    server.close();
                }
            }
            servers = null;
        }
        if (proxies != null) {
            for (PartitionProxy proxy : proxies) {
                proxy.close();
            }
            proxies = null;
        }
        clientPorts = null;
        routePorts = null;
        if (root != null) {
            deleteTree(root);
            root = null;
        }
    }

    private interface ClusterInfoQuery {

        ClusterInfo ask(JetStreamManagement jsm) throws IOException, JetStreamApiException;

    }

    private int leaderIndex(ClusterInfoQuery query, String what) {
        for (int i = 0; i < size; i++) {
            if (!isRunning(i)) {
                continue;
            }
            try (Connection connection = connect(url(i))) {
                ClusterInfo info = query.ask(connection.jetStreamManagement());
                if (info != null && info.getLeader() != null) {
                    for (int j = 0; j < size; j++) {
                        if (name(j).equals(info.getLeader())) {
                            return j;
                        }
                    }
                }
            }
            catch (Exception e) {
                // Ask the next server: this one may be the one that is down or catching
                // up.
            }
        }
        throw new IllegalStateException("no running server names a leader for " + what);
    }

    private void startServer(int index) {
        if (servers == null) {
            root = tempRoot();
            clientPorts = IntStream.range(0, size).map(i -> LoopbackPorts.next()).toArray();
            routePorts = IntStream.range(0, size).map(i -> LoopbackPorts.next()).toArray();
            servers = new NatsServerProcess[size];
            if (partitionable >= 0) {
                unusedPort = LoopbackPorts.next();
                // proxies[j] relays to server j's route port: the partitionable server's
                // own proxy takes its peers'
                // routes to it, the others take its routes to them.
                proxies = IntStream.range(0, size)
                    .mapToObj(j -> new PartitionProxy(LoopbackPorts.next(), routePorts[j]))
                    .toArray(PartitionProxy[]::new);
            }
        }
        if (servers[index] != null && servers[index].isRunning()) {
            return;
        }
        if (servers[index] == null) {
            Path config = root.resolve(name(index) + ".conf");
            write(config, config(index));
            Path binary = NatsServerProcess.findBinary()
                .orElseThrow(() -> new IllegalStateException(
                        "no nats-server binary: set VARPULIS_NATS_SERVER or put nats-server on PATH "
                                + "(scripts/install-nats-server.sh)"));
            servers[index] = new NatsServerProcess(binary, List.of("-c", config.toString()), clientPorts[index], true,
                    root.resolve(name(index) + ".log"));
        }
        servers[index].start(NatsServerExtension.STARTUP_TIMEOUT);
    }

    private String config(int index) {
        List<String> routes = new ArrayList<>();
        for (int j = 0; j < size; j++) {
            if (j != index) {
                boolean proxied = j == partitionable || index == partitionable;
                routes.add("nats-route://127.0.0.1:" + (proxied ? proxies[j].port() : routePorts[j]));
            }
        }
        String advertise = partitionable < 0 ? "" : "  advertise: 127.0.0.1:" + unusedPort + "\n";
        Path store = root.resolve(name(index) + "-store");
        return "server_name: " + name(index) + "\n" + "listen: 127.0.0.1:" + clientPorts[index] + "\n"
                + "jetstream {\n  store_dir: \"" + store + "\"\n  " + jetStreamConfig + "\n  "
                + serverJetStreamConfig.getOrDefault(index, "") + "\n}\n" + "cluster {\n  name: varpulis-test-"
                + routePorts[0] + "\n  listen: 127.0.0.1:" + routePorts[index] + "\n" + advertise + "  routes: ["
                + String.join(", ", routes) + "]\n}\n" + extraConfig + "\n";
    }

    /**
     * Waits until the meta leader can place a stream on every server: on 2.9 the leader
     * is elected before it knows its peers, and an R3 stream created then is refused with
     * "no suitable peers for placement" (10005).
     */
    private void awaitMetaLeader() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String last = "no answer yet";
        while (System.nanoTime() < deadline) {
            try (Connection connection = connect(url(0))) {
                JetStreamManagement jsm = connection.jetStreamManagement();
                jsm.getAccountStatistics();
                String probe = "CLUSTER_READY_PROBE";
                jsm.addStream(StreamConfiguration.builder()
                    .name(probe)
                    .subjects("cluster.ready.probe")
                    .storageType(StorageType.Memory)
                    .replicas(size)
                    .build());
                jsm.deleteStream(probe);
                return;
            }
            catch (Exception e) {
                last = e.toString();
            }
            sleep(200);
        }
        String exited = IntStream.range(0, size)
            .filter(i -> !servers[i].isRunning())
            .mapToObj(this::name)
            .collect(Collectors.joining(", "));
        throw new IllegalStateException(
                "the " + size + "-server cluster elected no JetStream meta leader within " + READY_TIMEOUT.toSeconds()
                        + " s (" + last + ")" + (exited.isEmpty() ? "" : "; exited: " + exited) + "; logs in " + root);
    }

    private static Connection connect(String url) throws IOException, InterruptedException {
        return Nats.connect(
                new Options.Builder().server(url).connectionTimeout(Duration.ofSeconds(2)).maxReconnects(0).build());
    }

    private PartitionProxy[] requireProxies() {
        if (proxies == null) {
            throw new IllegalStateException("no partitionable server: use withPartitionableServer(index) and start");
        }
        return proxies;
    }

    private int[] clientPorts() {
        if (clientPorts == null) {
            throw new IllegalStateException("the cluster has not been started yet");
        }
        return clientPorts;
    }

    private static Path tempRoot() {
        try {
            return Files.createTempDirectory("nats-cluster-");
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp dir for the nats cluster", e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the nats cluster", e);
        }
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
