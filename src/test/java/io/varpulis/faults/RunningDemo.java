package io.varpulis.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.KeyValueEntry;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A demo run as a fault sees it: its nodes and their process ids
 * ({@code nodes: NAME (pid N), ...}) and the pipelines' first placement ({@code group
 * ssh-bruteforce deployed: {ingress=NODE, ...}}), both read from the demo's output, and
 * the leading coordinator, read from the leader lease on the server.
 */
final class RunningDemo {

    /** The demo's cluster name (BruteForceDemo.CLUSTER), the key of its leader lease. */
    static final String CLUSTER = "varpulis-demo";

    private static final Pattern NODE = Pattern.compile("(\\S+) \\(pid (\\d+)\\)");

    private static final Pattern CONNECTED = Pattern.compile("NATS connected to \\S+ \\(server (\\S+) ");

    private static final Pattern DEPLOYED = Pattern.compile("group \\S+ deployed: \\{([^}]*)}");

    private static final Pattern NODE_LOGS = Pattern.compile("node logs: (\\S+)");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path log;

    private final String natsUrl;

    /**
     * @param log the demo's output
     * @param natsUrl the servers
     */
    RunningDemo(Path log, String natsUrl) {
        this.log = log;
        this.natsUrl = natsUrl;
    }

    /**
     * @return the servers' URL list
     */
    String natsUrl() {
        return natsUrl;
    }

    /**
     * @return the name of the NATS server the demo's own connection (its publishes and
     * its report) is on, as it last logged it, or empty before it connected
     */
    Optional<String> server() throws IOException {
        String server = null;
        for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
            Matcher connected = CONNECTED.matcher(line);
            if (connected.find()) {
                server = connected.group(1);
            }
        }
        return Optional.ofNullable(server);
    }

    /**
     * @param node a node of the run
     * @return the NATS server (n1, ...) it last logged being connected to
     * ({@code NATS connected to ... (server nX}), from its log in the run directory, or
     * empty
     */
    Optional<String> serverOf(String node) throws IOException {
        Matcher dir = NODE_LOGS.matcher(Files.readString(log, StandardCharsets.ISO_8859_1));
        if (!dir.find()) {
            return Optional.empty();
        }
        Path nodeLog = Path.of(dir.group(1)).resolve(node + ".log");
        String server = null;
        if (Files.isRegularFile(nodeLog)) {
            for (String line : Files.readAllLines(nodeLog, StandardCharsets.ISO_8859_1)) {
                Matcher connected = CONNECTED.matcher(line);
                if (connected.find()) {
                    server = connected.group(1);
                }
            }
        }
        return Optional.ofNullable(server);
    }

    /**
     * @param node a node of the run
     * @return its HTTP port, from its command line ({@code --server.port=N}, which the
     * demo passes)
     * @throws IllegalStateException when the process or the argument is gone
     */
    int httpPort(String node) throws IOException {
        String[] arguments = ProcessHandle.of(pids().get(node))
            .flatMap(p -> p.info().arguments())
            .orElseThrow(() -> new IllegalStateException(node + " is not running"));
        for (String argument : arguments) {
            if (argument.startsWith("--server.port=")) {
                return Integer.parseInt(argument.substring("--server.port=".length()));
            }
        }
        throw new IllegalStateException(node + " has no --server.port argument");
    }

    /**
     * @return node name to process id, in the order the demo printed them
     * @throws IllegalStateException when the demo has not printed its nodes
     */
    Map<String, Long> pids() throws IOException {
        for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
            if (line.startsWith("nodes: ")) {
                Map<String, Long> pids = new LinkedHashMap<>();
                Matcher node = NODE.matcher(line);
                while (node.find()) {
                    pids.put(node.group(1), Long.parseLong(node.group(2)));
                }
                return pids;
            }
        }
        throw new IllegalStateException("the demo printed no 'nodes:' line in " + log);
    }

    /**
     * @param pipeline a pipeline of the group ({@code alerts}, {@code detect})
     * @return the node it was first placed on
     * @throws IllegalStateException when the demo has not printed the placement or the
     * pipeline is not in it
     */
    String host(String pipeline) throws IOException {
        for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
            Matcher deployed = DEPLOYED.matcher(line);
            if (deployed.find()) {
                for (String entry : deployed.group(1).split(",\\s*")) {
                    String[] parts = entry.split("=", 2);
                    if (parts.length == 2 && parts[0].equals(pipeline)) {
                        return parts[1];
                    }
                }
            }
        }
        throw new IllegalStateException("no placement of " + pipeline + " in " + log);
    }

    /**
     * @return the coordinator holding the demo cluster's leader lease now, or
     * {@code null} when none does
     */
    String leader() throws Exception {
        try (Connection connection = connect()) {
            return leader(connection.keyValue(ControlPlaneBuckets.LEADER));
        }
    }

    /**
     * @param leases the {@value ControlPlaneBuckets#LEADER} bucket
     * @return the coordinator holding the demo cluster's lease, or {@code null} when none
     * does (or no answer)
     */
    static String leader(KeyValue leases) {
        try {
            KeyValueEntry entry = leases.get(CLUSTER);
            if (entry == null || entry.getValue() == null) {
                return null;
            }
            JsonNode lease = JSON.readTree(entry.getValue());
            return lease.path("leader").isTextual() ? lease.path("leader").asText() : null;
        }
        catch (Exception noAnswer) {
            return null;
        }
    }

    /**
     * @return a connection to the servers that retries for ever, for a fault's watch
     */
    Connection connect() throws IOException, InterruptedException {
        return Nats.connect(new Options.Builder().server(natsUrl)
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(-1)
            .build());
    }

}
