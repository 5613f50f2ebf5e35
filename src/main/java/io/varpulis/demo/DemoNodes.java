package io.varpulis.demo;

import io.varpulis.jetstream.DurableNames;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The run's nodes, not started: {@code --coordinators} coordinators
 * ({@code demo-<pid>-coordinator}, then {@code -coordinator-2}, ...) and
 * {@code --workers} workers ({@code demo-<pid>-worker-1}, {@code -2}, ...), each a JVM of
 * this application with the demo's cluster settings (heartbeat every second, dead after 4
 * s).
 *
 * @param coordinators the coordinators; the first answers the demo's API calls (a
 * follower stores and forwards what it is given, README "High availability")
 * @param workers the workers
 */
record DemoNodes(List<NodeProcess> coordinators, List<NodeProcess> workers) {

    /**
     * @param options the run's options ({@code --coordinators}, replicas)
     * @param pid this process's id, in every node name
     * @param url the servers' URL list, given to the nodes in their environment
     * @param runDir where the node logs go
     * @param alertDir the one directory the alert sink may write in
     * @param apiKey the run's api-key: only its workers may register
     * @param password the nodes' operator API password (environment, never the command
     * line)
     * @return the nodes, on distinct free loopback ports
     * @throws IOException when no free port is found
     */
    static DemoNodes of(DemoOptions options, long pid, String url, Path runDir, Path alertDir, String apiKey,
            String password) throws IOException {
        int count = options.coordinators();
        int[] ports = NodeProcess.freePorts(count + options.workers());
        Map<String, String> secrets = Map.of("SPRING_SECURITY_USER_PASSWORD", password, "VARPULIS_CLUSTER_APIKEY",
                apiKey, DemoOptions.URL_VARIABLE, url);
        String first = "demo-" + pid + "-coordinator";
        List<NodeProcess> coordinators = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = i == 0 ? first : first + "-" + (i + 1);
            coordinators
                .add(NodeProcess.of(id, properties(options, "coordinator", id, alertDir), secrets, runDir, ports[i]));
        }
        List<NodeProcess> workers = new ArrayList<>();
        for (int i = 0; i < options.workers(); i++) {
            workers.add(worker("demo-" + pid + "-worker-" + (i + 1), options, first, secrets, runDir, alertDir,
                    ports[count + i]));
        }
        return new DemoNodes(List.copyOf(coordinators), List.copyOf(workers));
    }

    /**
     * @param name a worker's name
     * @return that worker
     * @throws IllegalArgumentException when no worker of the run has that name
     */
    NodeProcess worker(String name) {
        return workers.stream()
            .filter(w -> w.name().equals(name))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no worker " + name + " in this run"));
    }

    /**
     * @return the first coordinator, which the demo asks
     */
    NodeProcess coordinator() {
        return coordinators.get(0);
    }

    /**
     * @return every node: the coordinators, then the workers
     */
    List<NodeProcess> all() {
        return Stream.concat(coordinators.stream(), workers.stream()).toList();
    }

    /**
     * @return the coordinators' durable heartbeat consumers, which no later run uses
     */
    List<String> coordinatorDurables() {
        return coordinators.stream().map(c -> DurableNames.heartbeatConsumer(c.name())).toList();
    }

    private static NodeProcess worker(String name, DemoOptions options, String coordinatorId,
            Map<String, String> secrets, Path runDir, Path alertDir, int port) {
        List<String> properties = new ArrayList<>(properties(options, "worker", coordinatorId, alertDir));
        properties.add("--varpulis.cluster.worker-id=" + name);
        return NodeProcess.of(name, properties, secrets, runDir, port);
    }

    private static List<String> properties(DemoOptions options, String role, String coordinatorId, Path alertDir) {
        return List.of("--varpulis.cluster.role=" + role, "--varpulis.cluster.name=" + BruteForceDemo.CLUSTER,
                "--varpulis.nats.substrate=jetstream", "--varpulis.nats.jetstream.replicas=" + options.replicas(),
                "--varpulis.cluster.coordinator-id=" + coordinatorId, "--varpulis.cluster.heartbeat-interval=1s",
                "--varpulis.cluster.heartbeat-timeout=4s", "--varpulis.nats.jetstream.consumer.ack-wait=10s",
                // The job's processor types are opt-in; alert-file writes only in the
                // alert file's directory.
                "--varpulis.demo.processors.enabled=true", "--varpulis.demo.processors.alert-dir=" + alertDir,
                "--spring.main.banner-mode=off");
    }
}
