package io.varpulis.faults;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.support.NatsServerBinaries;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Scenario {@code partition}: three nats-servers, each in a network namespace of its own
 * that this class creates ({@value #NS}1 to 3, addresses {@value #SUBNET}.11 to .13 on
 * veth pairs to the bridge {@value #BRIDGE}, which holds {@value #SUBNET}.1 for the demo
 * and its nodes in the host's namespace), R3 streams and state. A third into the stream,
 * the routing stream's leadership is moved to the server the demo's own connection is on
 * (so that its publishes and its report start on the minority side), then that leader is
 * cut off from the two other servers for {@code --cut} seconds by iptables DROP rules
 * inside its own namespace, while the clients connected to it stay connected; then the
 * rules are removed. Measured: when the two others elected a new routing leader.
 * Everything created is deleted at the end (and scripts/faults.sh deletes leftovers on
 * exit); no traffic leaves the namespaces and the bridge.
 */
final class PartitionedCluster implements AutoCloseable {

    /**
     * The private subnet of the namespaces this class creates; nothing else is ever
     * addressed in it.
     */
    static final String SUBNET = "10.251.25";

    /** Namespace name prefix. */
    static final String NS = "vf25-n";

    /** The bridge. */
    static final String BRIDGE = "vf25br";

    private static final int SIZE = 3;

    private static final int CLIENT_PORT = 4222;

    private static final int ROUTE_PORT = 6222;

    private static final int STEPDOWNS = 5;

    private final DemoScenario demo;

    private final FaultOptions options;

    private final Path out;

    private final List<Process> servers = new ArrayList<>();

    private Path root;

    /**
     * @param demo the demo runner
     * @param options the suite's options ({@code --cut}, {@code --rate})
     * @param out where the servers' logs go
     */
    PartitionedCluster(DemoScenario demo, FaultOptions options, Path out) {
        this.demo = demo;
        this.options = options;
        this.out = out;
    }

    /**
     * @param run the run number
     * @return the run's row
     */
    Row run(int run) throws Exception {
        try (PartitionedCluster cluster = this) {
            cluster.start(run);
            String url = IntStream.range(0, SIZE).mapToObj(PartitionedCluster::url).collect(Collectors.joining(","));
            return demo.run(new DemoScenario.Setup("partition", run, url, 3, options.rate(), DemoScenario.THREE_WORKERS,
                    Map.of(), 1.0 / 3, false), running -> {
                        String moved = leadFromDemoServer(running);
                        int leader = streamLeader(-1);
                        return leader < 0 ? DemoScenario.Injected.note("no routing leader a third into the stream")
                                : cut(leader, moved);
                    });
        }
    }

    private static String address(int index) {
        return SUBNET + "." + (11 + index);
    }

    private static String url(int index) {
        return "nats://" + address(index) + ":" + CLIENT_PORT;
    }

    private static String ns(int index) {
        return NS + (index + 1);
    }

    private void start(int run) throws Exception {
        Path binary = NatsServerBinaries.find()
            .orElseThrow(() -> new IllegalStateException(
                    "no nats-server: set " + "VARPULIS_NATS_SERVER (scripts/install-nats-server.sh)"));
        removeLeftovers();
        Tools.run(List.of("ip", "link", "add", BRIDGE, "type", "bridge"));
        Tools.run(List.of("ip", "addr", "add", SUBNET + ".1/24", "dev", BRIDGE));
        Tools.run(List.of("ip", "link", "set", BRIDGE, "up"));
        root = Files.createTempDirectory("faults-partition-");
        for (int i = 0; i < SIZE; i++) {
            String host = "vf25h" + (i + 1);
            String peer = "vf25p" + (i + 1);
            Tools.run(List.of("ip", "netns", "add", ns(i)));
            Tools.run(List.of("ip", "link", "add", host, "type", "veth", "peer", "name", peer));
            Tools.run(List.of("ip", "link", "set", peer, "netns", ns(i)));
            Tools.run(List.of("ip", "link", "set", host, "master", BRIDGE));
            Tools.run(List.of("ip", "link", "set", host, "up"));
            inNs(i, "ip", "addr", "add", address(i) + "/24", "dev", peer);
            inNs(i, "ip", "link", "set", peer, "up");
            inNs(i, "ip", "link", "set", "lo", "up");
        }
        for (int i = 0; i < SIZE; i++) {
            Path config = root.resolve("n" + (i + 1) + ".conf");
            int self = i;
            String routes = IntStream.range(0, SIZE)
                .filter(j -> j != self)
                .mapToObj(j -> "nats-route://" + address(j) + ":" + ROUTE_PORT)
                .collect(Collectors.joining(", "));
            Files.writeString(config,
                    "server_name: n" + (i + 1) + "\nlisten: " + address(i) + ":" + CLIENT_PORT
                            + "\njetstream { store_dir: \"" + root.resolve("n" + (i + 1) + "-store") + "\" }\n"
                            + "cluster {\n  name: faults-partition\n  listen: " + address(i) + ":" + ROUTE_PORT
                            + "\n  routes: [" + routes + "]\n}\n");
            servers.add(new ProcessBuilder("ip", "netns", "exec", ns(i), binary.toString(), "-c", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(out.resolve("partition-" + run + "-n" + (i + 1) + ".log").toFile())
                .start());
        }
        awaitReady();
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
        throw new IllegalStateException(
                "the namespaced cluster was not ready within 60 s: " + last + "; logs in " + out);
    }

    /**
     * Moves the routing stream's leadership to the server the demo's own connection is on
     * (a leader step-down that prefers it, at most {@value #STEPDOWNS} times), so that
     * the cut leaves the demo's publishes and its report on the minority side, the case a
     * client staying on the server it connected to must survive; the nodes are spread
     * over the servers by their own random choice.
     * @return what was done, for the notes
     */
    private String leadFromDemoServer(RunningDemo running) throws Exception {
        String server = running.server().orElse(null);
        if (server == null) {
            return "the demo's server not known, routing leader left where it was";
        }
        int target = Integer.parseInt(server.substring(1)) - 1;
        StreamLeaders.Move move = StreamLeaders.moveTo(urls(), VarpulisJetStream.ROUTING_STREAM, target, STEPDOWNS);
        if (!move.held()) {
            return "the routing leader could not be moved to the demo's server " + server;
        }
        return move.stepDowns() == 0 ? "the demo's server " + server + " led the routing stream"
                : "routing leadership moved to the demo's server " + server + " (" + move.stepDowns() + " step-downs)";
    }

    /**
     * Cuts the leader off from the other servers for {@code --cut} seconds and times the
     * others' election.
     */
    private DemoScenario.Injected cut(int leader, String moved) throws Exception {
        List<String> peers = IntStream.range(0, SIZE)
            .filter(j -> j != leader)
            .mapToObj(PartitionedCluster::address)
            .toList();
        long cutAt = System.nanoTime();
        for (String peer : peers) {
            inNs(leader, "iptables", "-A", "INPUT", "-s", peer, "-j", "DROP");
            inNs(leader, "iptables", "-A", "OUTPUT", "-d", peer, "-j", "DROP");
        }
        long elected = -1;
        try {
            while (System.nanoTime() - cutAt < options.cut() * 1_000_000_000L) {
                if (elected < 0 && streamLeader(leader) >= 0) {
                    elected = (System.nanoTime() - cutAt) / 1_000_000;
                }
                Thread.sleep(250);
            }
        }
        finally {
            inNs(leader, "iptables", "-F");
        }
        return new DemoScenario.Injected(
                moved + "; routing leader n" + (leader + 1) + " cut off from the two other servers "
                        + "(iptables DROP in its namespace) for " + options.cut() + " s, its clients still connected; "
                        + (elected < 0 ? "no new leader among the others"
                                : "the others elected a leader after " + elected + " ms"),
                elected < 0 ? "no new leader" : "new routing leader in " + elected + " ms");
    }

    /**
     * @param not a server not to ask (the one cut off), or -1
     * @return the index of the routing stream's leader as another server names it, or -1
     * when none does
     */
    private int streamLeader(int not) {
        return StreamLeaders.leader(urls(), VarpulisJetStream.ROUTING_STREAM, not);
    }

    private static List<String> urls() {
        return IntStream.range(0, SIZE).mapToObj(PartitionedCluster::url).toList();
    }

    private static Connection connect(String url) throws IOException, InterruptedException {
        return Nats.connect(
                new Options.Builder().server(url).connectionTimeout(Duration.ofSeconds(2)).maxReconnects(0).build());
    }

    private static void inNs(int index, String... command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", ns(index)));
        full.addAll(List.of(command));
        Tools.run(full);
    }

    /**
     * Deletes this class's namespaces and bridge if a run killed earlier left them (their
     * veths go with them).
     */
    static void removeLeftovers() throws IOException, InterruptedException {
        String namespaces = Tools.run(List.of("ip", "netns", "list"));
        for (int i = 0; i < SIZE; i++) {
            if (namespaces.contains(ns(i))) {
                Tools.run(List.of("ip", "netns", "del", ns(i)));
            }
        }
        if (Tools.run(List.of("ip", "link", "show")).contains(BRIDGE + ":")) {
            Tools.run(List.of("ip", "link", "del", BRIDGE));
        }
    }

    /** Stops the servers, deletes the namespaces, the bridge and the stores. */
    @Override
    public void close() throws Exception {
        for (Process server : servers) {
            server.destroyForcibly().waitFor();
        }
        servers.clear();
        removeLeftovers();
        if (root != null) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
            root = null;
        }
    }

}
