package io.varpulis.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.support.NatsServerBinaries;
import io.varpulis.test.LoopbackPorts;
import io.varpulis.test.Processes;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Three clustered nats-servers on 127.0.0.1 for issue 30's disk faults, {@code n1} to
 * {@code n3}, whose command a scenario may wrap (n2 run from its start under strace) and
 * whose stores may be tmpfs mounts of a given size (one of them filled); each with a
 * monitoring port ({@code /jsz}: is JetStream still on) and its log in the output
 * directory. The test's own {@code NatsClusterExtension} runs its servers itself, so it
 * can do neither. Everything is removed at the end: servers (and their wrappers'
 * children), mounts, stores.
 */
final class LoopbackCluster implements AutoCloseable {

    static final int SIZE = 3;

    /**
     * The prefix of this class's temp dirs, which scripts/faults.sh unmounts if a run
     * killed earlier left them.
     */
    static final String ROOT_PREFIX = "faults-disk-";

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Path out;

    private final String label;

    private final String jetStream;

    private final Map<Integer, List<String>> wrappers = new HashMap<>();

    private final int[] clientPorts;

    private final int[] routePorts;

    private final int[] monitorPorts;

    private final Process[] servers = new Process[SIZE];

    private final Path root;

    private int tmpfsMegabytes;

    private final List<Path> mounts = new ArrayList<>();

    /**
     * @param out where the servers' logs go ({@code <label>-n1.log} ...)
     * @param label the run's name
     * @param jetStream lines inside every server's {@code jetstream {...}} block
     * ({@code sync_interval: always})
     */
    LoopbackCluster(Path out, String label, String jetStream) throws IOException {
        this.out = out;
        this.label = label;
        this.jetStream = jetStream;
        int[] ports = LoopbackPorts.next(3 * SIZE);
        this.clientPorts = new int[] { ports[0], ports[1], ports[2] };
        this.routePorts = new int[] { ports[3], ports[4], ports[5] };
        this.monitorPorts = new int[] { ports[6], ports[7], ports[8] };
        this.root = Files.createTempDirectory(ROOT_PREFIX);
    }

    /**
     * @param index a server, 0-based
     * @param command what runs the server, its command line appended
     * ({@code strace -f ... -o /dev/null})
     * @return this cluster
     */
    LoopbackCluster wrap(int index, List<String> command) {
        wrappers.put(index, List.copyOf(command));
        return this;
    }

    /**
     * @param megabytes every server's store is a tmpfs mount of this size, mounted at
     * {@link #start()} (root only)
     * @return this cluster
     */
    LoopbackCluster withTmpfsStores(int megabytes) {
        this.tmpfsMegabytes = megabytes;
        return this;
    }

    /**
     * @return {@code nats://127.0.0.1:p1,...}
     */
    String url() {
        return IntStream.range(0, SIZE).mapToObj(this::url).collect(Collectors.joining(","));
    }

    /**
     * @return the URLs, in server order
     */
    List<String> urls() {
        return IntStream.range(0, SIZE).mapToObj(this::url).toList();
    }

    String url(int index) {
        return "nats://127.0.0.1:" + clientPorts[index];
    }

    static String name(int index) {
        return "n" + (index + 1);
    }

    /**
     * @return the index of {@code n1}... or -1
     */
    static int index(String name) {
        return name != null && name.matches("n[1-" + SIZE + "]") ? Integer.parseInt(name.substring(1)) - 1 : -1;
    }

    /**
     * @return a server's store directory (a tmpfs mount point with
     * {@link #withTmpfsStores})
     */
    Path store(int index) {
        return root.resolve(name(index) + "-store");
    }

    /**
     * @return a server's log
     */
    Path log(int index) {
        return out.resolve(label + "-" + name(index) + ".log");
    }

    /**
     * Starts the three servers and waits until an R3 stream can be placed (60 s at most).
     */
    void start() throws Exception {
        for (int i = 0; i < SIZE; i++) {
            Files.createDirectories(store(i));
            if (tmpfsMegabytes > 0) {
                Tools.run(List.of("mount", "-t", "tmpfs", "-o", "size=" + tmpfsMegabytes + "m", "tmpfs",
                        store(i).toString()));
                mounts.add(store(i));
            }
            Files.deleteIfExists(log(i));
        }
        for (int i = 0; i < SIZE; i++) {
            start(i);
        }
        awaitReady();
    }

    /**
     * Starts one server (again, on its ports and store) and waits until it accepts
     * clients.
     * @param index a server, 0-based
     */
    void start(int index) throws Exception {
        Path binary = NatsServerBinaries.find()
            .orElseThrow(() -> new IllegalStateException(
                    "no nats-server: set " + "VARPULIS_NATS_SERVER (scripts/install-nats-server.sh)"));
        Path config = root.resolve(name(index) + ".conf");
        String routes = IntStream.range(0, SIZE)
            .filter(j -> j != index)
            .mapToObj(j -> "nats-route://127.0.0.1:" + routePorts[j])
            .collect(Collectors.joining(", "));
        Files.writeString(config,
                "server_name: " + name(index) + "\nlisten: 127.0.0.1:" + clientPorts[index] + "\nhttp: 127.0.0.1:"
                        + monitorPorts[index] + "\njetstream {\n  store_dir: \"" + store(index) + "\"\n  " + jetStream
                        + "\n}\ncluster {\n  name: faults-disk\n  listen: 127.0.0.1:" + routePorts[index]
                        + "\n  routes: [" + routes + "]\n}\n");
        List<String> command = new ArrayList<>(wrappers.getOrDefault(index, List.of()));
        command.addAll(List.of(binary.toString(), "-c", config.toString()));
        servers[index] = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log(index).toFile()))
            .start();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (!servers[index].isAlive()) {
                throw new IllegalStateException(
                        name(index) + " exited at start: " + String.join(" ", command) + "; see " + log(index));
            }
            // A socket, not a NATS client: jnats logs every refused connection at SEVERE.
            try (Socket socket = new Socket("127.0.0.1", clientPorts[index])) {
                socket.setSoTimeout(1000);
                if (new String(socket.getInputStream().readNBytes(4), StandardCharsets.US_ASCII).equals("INFO")) {
                    return;
                }
            }
            catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException(name(index) + " did not accept clients within 30 s; see " + log(index));
    }

    /**
     * Kills one server with SIGKILL, with what its wrapper started.
     * @param index a server, 0-based
     */
    void kill(int index) {
        if (servers[index] != null) {
            Processes.kill(servers[index]);
            servers[index] = null;
        }
    }

    /**
     * @param index a server, 0-based
     * @return whether its {@code /jsz} says JetStream is on ({@code "disabled": true}
     * once a full store disabled it); false when it does not answer
     */
    boolean jetStreamEnabled(int index) {
        try {
            HttpResponse<String> jsz = HTTP
                .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitorPorts[index] + "/jsz"))
                    .timeout(Duration.ofSeconds(2))
                    .build(), HttpResponse.BodyHandlers.ofString());
            return jsz.statusCode() == 200 && !jsz.body().replace(" ", "").contains("\"disabled\":true");
        }
        catch (IOException e) {
            return false;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * @return the JetStream meta leader as {@code /jsz} names it
     * ({@code meta_cluster.leader}), or {@code ?}
     */
    String metaLeader() {
        for (int i = 0; i < SIZE; i++) {
            try {
                HttpResponse<String> jsz = HTTP
                    .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitorPorts[i] + "/jsz"))
                        .timeout(Duration.ofSeconds(2))
                        .build(), HttpResponse.BodyHandlers.ofString());
                String leader = JSON.readTree(jsz.body()).path("meta_cluster").path("leader").asText("");
                if (!leader.isEmpty()) {
                    return leader;
                }
            }
            catch (IOException e) {
                // Ask the next one.
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "?";
            }
        }
        return "?";
    }

    /**
     * @return what each server's {@code /jsz} says of the JetStream meta group: its
     * leader, its size and the peers the server sees ({@code n1: leader n2, size 3, peers
     * [n1, n3]; ...}), {@code ?} for a server that does not answer
     */
    String metaGroups() {
        List<String> groups = new ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            try {
                HttpResponse<String> jsz = HTTP
                    .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitorPorts[i] + "/jsz"))
                        .timeout(Duration.ofSeconds(2))
                        .build(), HttpResponse.BodyHandlers.ofString());
                var meta = JSON.readTree(jsz.body()).path("meta_cluster");
                List<String> peers = new ArrayList<>();
                meta.path("replicas")
                    .forEach(peer -> peers
                        .add(peer.path("name").asText() + (peer.path("offline").asBoolean() ? " offline" : "")
                                + (peer.path("current").asBoolean() ? "" : " behind")));
                groups.add(name(i) + ": leader " + meta.path("leader").asText("none") + ", size "
                        + meta.path("cluster_size").asText("?") + ", peers " + peers);
            }
            catch (IOException e) {
                groups.add(name(i) + ": ?");
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                groups.add(name(i) + ": ?");
            }
        }
        return String.join("; ", groups);
    }

    /**
     * @param stream a stream
     * @return the index of its leader as the first server that answers names it, -1 when
     * none does
     */
    int streamLeader(String stream) {
        return StreamLeaders.leader(urls(), stream, -1);
    }

    /**
     * Waits until an R3 stream can be created (the meta leader knows its peers), 60 s at
     * most.
     */
    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try (Connection connection = connect(url(0))) {
                JetStreamManagement jsm = connection.jetStreamManagement();
                jsm.addStream(StreamConfiguration.builder()
                    .name("FAULTS_READY")
                    .subjects("faults.ready")
                    .storageType(StorageType.Memory)
                    .replicas(SIZE)
                    .build());
                jsm.deleteStream("FAULTS_READY");
                return;
            }
            catch (Exception e) {
                last = e.toString();
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the cluster was not ready within 60 s: " + last + "; logs in " + out);
    }

    static Connection connect(String url) throws IOException, InterruptedException {
        return Nats.connect(
                new Options.Builder().server(url).connectionTimeout(Duration.ofSeconds(2)).maxReconnects(0).build());
    }

    /**
     * Kills the servers and their wrappers' children, unmounts the tmpfs stores, deletes
     * the stores.
     */
    @Override
    public void close() throws Exception {
        for (int i = 0; i < SIZE; i++) {
            kill(i);
        }
        for (Path mount : mounts) {
            try {
                Tools.run(List.of("umount", mount.toString()));
            }
            catch (IllegalStateException busy) {
                Tools.run(List.of("umount", "-l", mount.toString()));
            }
        }
        mounts.clear();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * @return text of a file, empty when unreadable
     */
    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        }
        catch (IOException e) {
            return "";
        }
    }

}
