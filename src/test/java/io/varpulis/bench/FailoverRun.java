package io.varpulis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Issue 12's failover times, with the production settings (heartbeat 5 s / 15 s, leader
 * lease 6 s): two coordinators and two workers started from the jar, the group
 * {@code _external -> a -> b -> c} (passthrough), and per round:
 * <ol>
 * <li>graceful: the leader gets SIGTERM; time to the other coordinator answering
 * {@code this_node_leads: true};</li>
 * <li>crash: the leader gets SIGKILL; the same time;</li>
 * <li>worker: the worker running {@code c} gets SIGKILL; time to a coordinator showing
 * {@code c} running on the other worker (its deploy answered, its consumer bound), polled
 * every 20 ms;</li>
 * <li>worker and leader: both get SIGKILL at once; the same time.</li>
 * </ol>
 * Killed and stopped nodes are started again (same ids) and the cluster settles before
 * the next measurement.
 */
final class FailoverRun {

    /** The production defaults, written out so the table says what was measured. */
    static final List<String> SETTINGS = List.of("--varpulis.cluster.heartbeat-interval=5s",
            "--varpulis.cluster.heartbeat-timeout=15s", "--varpulis.cluster.leader-lease-ttl=6s",
            "--varpulis.cluster.name=bench-failover");

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String GROUP = "fo";

    private static final String GROUP_JSON = """
            {"name": "fo", "pipelines": [{"name": "a", "processor": {"type": "passthrough"}},
              {"name": "b", "processor": {"type": "passthrough"}}, {"name": "c", "processor": {"type": "passthrough"}}],
             "routes": [{"from_pipeline": "_external", "to_pipeline": "a"}, {"from_pipeline": "a", "to_pipeline": "b"},
              {"from_pipeline": "b", "to_pipeline": "c"}]}""";

    private static final long TIMEOUT_NANOS = 120_000_000_000L;

    private final Broker broker;

    private final Path jar;

    private final List<String> flags;

    private final Path logDir;

    private final Map<String, NodeJvm> nodes = new ConcurrentHashMap<>();

    private final Map<String, Seen> heartbeats = new ConcurrentHashMap<>();

    private int starts;

    private FailoverRun(Broker broker, Path jar, List<String> flags, Path logDir) {
        this.broker = broker;
        this.jar = jar;
        this.flags = flags;
        this.logDir = logDir;
    }

    /**
     * @param rounds how many times each failover is measured
     */
    static Result run(Broker broker, Path jar, List<String> flags, int rounds, Path logDir) throws Exception {
        FailoverRun run = new FailoverRun(broker, jar, flags, logDir);
        try (Connection observer = Broker.connect(broker.url())) {
            Dispatcher dispatcher = observer.createDispatcher(m -> {
                try {
                    String worker = m.getSubject().substring(m.getSubject().lastIndexOf('.') + 1);
                    run.heartbeats.put(worker, new Seen(JSON.readTree(m.getData()), System.nanoTime()));
                }
                catch (Exception e) {
                    // Not a heartbeat this run reads; ignored.
                }
            });
            dispatcher.subscribe("varpulis.cluster.heartbeat.*");
            return run.measure(rounds);
        }
        finally {
            run.nodes.values().forEach(NodeJvm::close);
        }
    }

    private Result measure(int rounds) throws Exception {
        for (String id : List.of("fo-c1", "fo-c2", "fo-w1", "fo-w2")) {
            start(id);
        }
        for (NodeJvm node : nodes.values()) {
            node.awaitReady();
        }
        String leader = awaitLeader(null);
        nodes.get(leader).http("/api/v1/cluster/pipeline-groups", GROUP_JSON);
        awaitRunning(0);
        List<Long> graceful = new ArrayList<>();
        List<Long> crash = new ArrayList<>();
        List<Long> worker = new ArrayList<>();
        List<Long> both = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            graceful.add(leaderGone(false));
            crash.add(leaderGone(true));
            worker.add(hostGone(false));
            both.add(hostGone(true));
            System.out.printf("failover round %d: graceful %d ms, crash %d ms, worker %d ms, worker and leader %d ms%n",
                    round, graceful.get(round - 1), crash.get(round - 1), worker.get(round - 1), both.get(round - 1));
        }
        return new Result(null, String.join(" ", SETTINGS), graceful, crash, worker, both);
    }

    /**
     * Stops (SIGTERM) or kills the leader; ms to the other coordinator leading; then
     * starts it again.
     */
    private long leaderGone(boolean kill) throws Exception {
        String leader = awaitLeader(null);
        NodeJvm node = nodes.remove(leader);
        long from = System.nanoTime();
        if (kill) {
            node.kill();
        }
        else {
            node.close();
        }
        awaitLeader(leader);
        long ms = (System.nanoTime() - from) / 1_000_000;
        start(leader).awaitReady();
        return ms;
    }

    /**
     * Kills the worker running c (and the leader, with it); ms to c running elsewhere;
     * then restarts them.
     */
    private long hostGone(boolean withLeader) throws Exception {
        String host = hostOf("c", 0);
        String leader = withLeader ? awaitLeader(null) : null;
        long from = System.nanoTime();
        nodes.remove(host).kill();
        if (leader != null) {
            nodes.remove(leader).kill();
        }
        until(() -> runsElsewhere("c", host), "c running elsewhere");
        long ms = (System.nanoTime() - from) / 1_000_000;
        start(host).awaitReady();
        if (leader != null) {
            start(leader).awaitReady();
        }
        awaitLeader(null);
        awaitRunning(System.nanoTime());
        return ms;
    }

    private NodeJvm start(String id) throws Exception {
        boolean coordinator = id.startsWith("fo-c");
        List<String> args = new ArrayList<>(SETTINGS);
        args.add("--varpulis.cluster.role=" + (coordinator ? "coordinator" : "worker"));
        args.add(coordinator ? "--varpulis.cluster.coordinator-id=" + id : "--varpulis.cluster.worker-id=" + id);
        NodeJvm node = NodeJvm.start(jar, id + "-" + ++starts, flags, args, broker.url(), logDir);
        nodes.put(id, node);
        return node;
    }

    /** The leading coordinator's id, once one other than {@code not} leads. */
    private String awaitLeader(String not) throws Exception {
        String[] found = new String[1];
        until(() -> {
            for (Map.Entry<String, NodeJvm> e : nodes.entrySet()) {
                if (e.getKey().startsWith("fo-c") && !e.getKey().equals(not) && leads(e.getValue())) {
                    found[0] = e.getKey();
                    return true;
                }
            }
            return false;
        }, "a leader");
        return found[0];
    }

    private static boolean leads(NodeJvm coordinator) {
        try {
            return JSON.readTree(coordinator.http("/api/v1/cluster/leader", null)).path("this_node_leads").asBoolean();
        }
        catch (Exception e) {
            return false;
        }
    }

    /**
     * @return whether a coordinator shows the pipeline running (its deploy answered, its
     * consumers bound) on another worker than {@code host}
     */
    private boolean runsElsewhere(String pipeline, String host) {
        for (Map.Entry<String, NodeJvm> e : nodes.entrySet()) {
            if (e.getKey().startsWith("fo-c")) {
                try {
                    JsonNode view = JSON.readTree(e.getValue().http("/api/v1/cluster/pipeline-groups/" + GROUP, null))
                        .path("pipelines")
                        .path(pipeline);
                    if (view.path("state").asText().equals("running") && !view.path("worker").asText().equals(host)) {
                        return true;
                    }
                }
                catch (Exception notAnswering) {
                    // A coordinator starting or just killed: ask the other.
                }
            }
        }
        return false;
    }

    /**
     * Waits until every pipeline of the group is reported by a heartbeat received after
     * {@code since}.
     */
    private void awaitRunning(long since) throws Exception {
        until(() -> List.of("a", "b", "c").stream().allMatch(p -> hostOf(p, since) != null), "the group running");
    }

    /**
     * The worker whose last heartbeat, received after {@code since}, reports the
     * pipeline.
     */
    private String hostOf(String pipeline, long since) {
        for (Map.Entry<String, Seen> e : heartbeats.entrySet()) {
            if (e.getValue().at() - since > 0 && nodes.containsKey(e.getKey())) {
                for (JsonNode metric : e.getValue().beat().path("pipeline_metrics")) {
                    if (GROUP.equals(metric.path("group").asText())
                            && pipeline.equals(metric.path("pipeline_name").asText())) {
                        return e.getKey();
                    }
                }
            }
        }
        return null;
    }

    private static void until(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("failover: no " + what + " within 120 s");
            }
            Thread.sleep(20);
        }
    }

    private record Seen(JsonNode beat, long at) {
    }

    /**
     * @param pending why the scenario could not run, or {@code null}
     * @param settings the cluster settings measured
     * @param graceful leader SIGTERM to new leader, ms per round
     * @param crash leader SIGKILL to new leader, ms per round
     * @param worker worker SIGKILL to its pipeline running elsewhere, ms per round
     * @param both worker and leader SIGKILL to the pipeline running elsewhere, ms per
     * round
     */
    record Result(String pending, String settings, List<Long> graceful, List<Long> crash, List<Long> worker,
            List<Long> both) {

        static Result pending(String why) {
            return new Result(why, "", List.of(), List.of(), List.of(), List.of());
        }
    }

}
