package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.varpulis.cluster.protocol.ControlPlaneBuckets;
import io.varpulis.cluster.protocol.WorkerHeartbeat;
import io.varpulis.nats.Subjects;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.test.BrokerTest;
import io.varpulis.test.NatsClusterExtension;
import io.varpulis.test.NatsServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12's done-means, with two and three coordinators run as their own JVMs (the
 * leader is killed with SIGKILL) and three workers, under a steady load of events
 * published into the group's {@code _external} edge:
 * <ul>
 * <li>while the leader is killed, each pipeline runs on exactly one worker at every
 * sample, as the workers' own heartbeats say, another coordinator leads within the lease
 * TTL plus one renewal, and no event is lost;</li>
 * <li>when the worker running the last pipeline dies together with the leader, that
 * pipeline runs again, on another worker, within heartbeat-timeout plus lease TTL plus 5
 * s, and no event is lost;</li>
 * <li>on three servers with every stream and bucket R3 and two coordinators, the leader
 * killed together with the server leading its lease bucket: the other coordinator leads
 * within the lease TTL, a third of it and the bucket's election, no pipeline runs on two
 * workers or none, none moves, no event is lost.</li>
 * </ul>
 * The times measured are printed ({@code failover:} lines); BENCHMARKS.md has them with
 * production settings.
 */
@BrokerTest
class ControlPlaneFailoverTest {

    @RegisterExtension
    final NatsServerExtension nats = NatsServerExtension.jetStream();

    @TempDir
    Path logs;

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Duration WAIT = Duration.ofSeconds(90);

    private static final String GROUP = "failover";

    private static final Set<String> PIPELINES = Set.of("a", "b", "c");

    private static final Duration LEASE = ClusterNode.LEADER_LEASE_TTL;

    /**
     * The test nodes' timings (ClusterNode's): heartbeat every 500 ms, dead after 2 s,
     * leader lease 2 s.
     */
    private static final Timings FAST = new Timings(ClusterNode.HEARTBEAT_INTERVAL, ClusterNode.HEARTBEAT_TIMEOUT,
            LEASE);

    @ParameterizedTest(name = "{0} coordinators")
    @ValueSource(ints = { 2, 3 })
    void eachPipelineRunsOnExactlyOneWorkerAtEverySampleWhileTheLeaderIsKilledUnderLoad(int size) throws Exception {
        try (Cluster cluster = new Cluster(size, nats.url(), 1, FAST)) {
            cluster.loadFor(Duration.ofSeconds(2));
            ClusterProcess leader = cluster.leader();
            long epoch = cluster.epoch(leader);

            long killed = System.nanoTime();
            leader.kill();
            ClusterProcess next = await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> cluster.leaderAmong(cluster.coordinators), n -> n != null && n != leader);
            Duration takeover = Duration.ofNanos(System.nanoTime() - killed);
            cluster.loadFor(Duration.ofSeconds(5));

            System.out.printf("failover: %d coordinators, leader SIGKILL to new leader: %d ms%n", size,
                    takeover.toMillis());
            assertThat(takeover).as("leader kill to new leader")
                .isLessThanOrEqualTo(LEASE.plus(LEASE.dividedBy(3)).plusSeconds(3));
            assertThat(cluster.epoch(next)).isGreaterThan(epoch);
            cluster.awaitEveryEventApplied();
            assertThat(cluster.samples).as("samples taken").hasSizeGreaterThan(50);
            assertThat(cluster.violations).as("samples where a pipeline ran on no worker or on two").isEmpty();
            assertThat(cluster.hostsSeen).as("no pipeline moved")
                .allSatisfy((p, hosts) -> assertThat(hosts).hasSize(1));
        }
    }

    // Three coordinators only: the leader's kill with two and three is the test above;
    // here what matters is the
    // successor placing the orphan, which is the same with either.
    @ParameterizedTest(name = "{0} coordinators")
    @ValueSource(ints = { 3 })
    void aPipelineWhoseWorkerDiesWhileTheLeaderIsDeadRunsAgainWithinHeartbeatTimeoutPlusLeaseTtlPlus5s(int size)
            throws Exception {
        try (Cluster cluster = new Cluster(size, nats.url(), 1, FAST)) {
            cluster.loadFor(Duration.ofSeconds(2));
            ClusterProcess leader = cluster.leader();
            ClusterNode host = cluster.hostOf("c");

            long killed = System.nanoTime();
            leader.kill();
            host.kill();
            cluster.exclusive = false;
            String successor = await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> cluster.runningOn("c"), w -> w != null && !w.equals(host.name()));
            Duration back = Duration.ofNanos(System.nanoTime() - killed);
            cluster.loadFor(Duration.ofSeconds(3));

            System.out.printf(
                    "failover: %d coordinators, leader and worker SIGKILL to the pipeline running on %s:" + " %d ms%n",
                    size, successor, back.toMillis());
            assertThat(back).as("worker and leader killed to the pipeline running elsewhere")
                .isLessThanOrEqualTo(ClusterNode.HEARTBEAT_TIMEOUT.plus(LEASE).plusSeconds(5));
            cluster.awaitEveryEventApplied();
            assertThat(cluster.violations).as("samples where a pipeline ran on two workers").isEmpty();
        }
    }

    /**
     * Production's topology: three nats-servers, every stream and bucket R3, two
     * coordinators, production's leader lease (6 s) and a heartbeat timeout well over a
     * stream leader's election. The leading coordinator and the server leading the
     * leader-lease bucket are killed with SIGKILL at the same moment: the other
     * coordinator leads within the lease TTL, one renewal and the bucket's election, no
     * pipeline ever runs on two workers, none moves, and no event is lost.
     */
    @Test
    void onThreeServersR3_theLeaderAndTheServerLeadingItsLeaseKilledTogether_theOtherLeadsAndNothingIsLost()
            throws Exception {
        Timings production = new Timings(Duration.ofSeconds(1), Duration.ofSeconds(15), Duration.ofSeconds(6));
        try (NatsClusterExtension servers = NatsClusterExtension.ofThree()) {
            servers.start();
            try (Cluster cluster = new Cluster(2, servers.url(), 3, production)) {
                cluster.loadFor(Duration.ofSeconds(3));
                ClusterProcess leader = cluster.leader();
                long epoch = cluster.epoch(leader);
                int leaseServer = servers.streamLeader("KV_" + ControlPlaneBuckets.LEADER);

                long killed = System.nanoTime();
                leader.kill();
                servers.kill(leaseServer);
                ClusterProcess next = await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> cluster.leaderAmong(cluster.coordinators), n -> n != null && n != leader);
                Duration takeover = Duration.ofNanos(System.nanoTime() - killed);
                cluster.loadFor(Duration.ofSeconds(5));
                servers.start(leaseServer);
                cluster.loadFor(Duration.ofSeconds(2));

                System.out.printf("failover: 2 coordinators on 3 servers (R3), leader and the lease bucket's server "
                        + "SIGKILL to new leader: %d ms%n", takeover.toMillis());
                assertThat(takeover).as("leader and lease server kill to new leader")
                    .isLessThanOrEqualTo(production.lease().plus(production.lease().dividedBy(3)).plusSeconds(10));
                assertThat(cluster.epoch(next)).isGreaterThan(epoch);
                cluster.awaitEveryEventApplied();
                assertThat(cluster.samples).as("samples taken").hasSizeGreaterThan(50);
                assertThat(cluster.violations).as("samples where a pipeline ran on no worker or on two").isEmpty();
                assertThat(cluster.hostsSeen).as("no pipeline moved")
                    .allSatisfy((p, hosts) -> assertThat(hosts).hasSize(1));
            }
        }
    }

    /**
     * @param heartbeatInterval how often workers beat
     * @param heartbeatTimeout how long without a beat before a worker is dead
     * @param lease the leader lease's TTL
     */
    private record Timings(Duration heartbeatInterval, Duration heartbeatTimeout, Duration lease) {

        /**
         * @return the nodes' arguments for them
         */
        List<String> arguments() {
            return List.of("--varpulis.cluster.heartbeat-interval=" + heartbeatInterval.toMillis() + "ms",
                    "--varpulis.cluster.heartbeat-timeout=" + heartbeatTimeout.toMillis() + "ms",
                    "--varpulis.cluster.leader-lease-ttl=" + lease.toMillis() + "ms");
        }

        /**
         * @return how old a heartbeat may be and still say where a pipeline runs
         */
        Duration fresh() {
            return heartbeatInterval.multipliedBy(3);
        }
    }

    /**
     * Coordinators as processes, workers in this JVM, a heartbeat sampler and a loader.
     */
    private final class Cluster implements AutoCloseable {

        private final List<ClusterProcess> coordinators = new ArrayList<>();

        private final List<ClusterNode> workers = new ArrayList<>();

        private final Connection observer;

        private final Map<String, Seen> latest = new ConcurrentHashMap<>();

        private final List<Map<String, Set<String>>> samples = new CopyOnWriteArrayList<>();

        private final List<String> violations = new CopyOnWriteArrayList<>();

        private final Map<String, Set<String>> hostsSeen = new ConcurrentHashMap<>();

        private final AtomicInteger published = new AtomicInteger();

        private final AtomicBoolean sampling = new AtomicBoolean(true);

        private final Thread sampler;

        private volatile boolean exclusive = true;

        private final Duration fresh;

        /**
         * @param size coordinators
         * @param url the servers
         * @param replicas of every stream and bucket
         * @param timings heartbeats and lease
         */
        Cluster(int size, String url, int replicas, Timings timings) throws Exception {
            this.fresh = timings.fresh();
            List<String> common = new ArrayList<>(
                    List.of("--varpulis.cluster.role=coordinator", "--varpulis.nats.url=" + url,
                            "--varpulis.nats.substrate=jetstream", "--varpulis.nats.jetstream.replicas=" + replicas,
                            "--varpulis.cluster.worker-lease-ttl=" + ClusterNode.WORKER_LEASE_TTL.toMillis() + "ms",
                            "--varpulis.cluster.command-timeout=2s", "--varpulis.cluster.rebalance-delay=1h"));
            common.addAll(timings.arguments());
            for (int i = 1; i <= size; i++) {
                List<String> args = new ArrayList<>(common);
                args.add("--varpulis.cluster.coordinator-id=coord-" + i);
                coordinators.add(ClusterProcess.start("coord-" + i, logs, args));
            }
            List<String> workerSettings = new ArrayList<>(timings.arguments());
            workerSettings.add("--varpulis.nats.jetstream.replicas=" + replicas);
            String[] extra = workerSettings.toArray(String[]::new);
            List<CompletableFuture<ClusterNode>> starting = IntStream.rangeClosed(1, 3)
                .mapToObj(i -> CompletableFuture
                    .supplyAsync(() -> ClusterNode.worker(url, "jetstream", "worker-" + i, false, extra)))
                .toList();
            starting.forEach(w -> workers.add(w.join()));
            observer = Nats.connect(new Options.Builder().servers(url.split(",")).build());
            Dispatcher heartbeats = observer.createDispatcher(message -> {
                try {
                    WorkerHeartbeat beat = JSON.readValue(message.getData(), WorkerHeartbeat.class);
                    String worker = message.getSubject().substring(Subjects.HEARTBEAT_ROOT.length() + 1);
                    latest.put(worker, new Seen(beat, System.nanoTime()));
                }
                catch (Exception e) {
                    violations.add("unreadable heartbeat: " + e);
                }
            });
            heartbeats.subscribe(Subjects.HEARTBEAT_ROOT + ".*");
            for (ClusterProcess coordinator : coordinators) {
                await().atMost(WAIT)
                    .until(() -> coordinator.get("/actuator/health/readiness")
                        .map(r -> r.status() == 200)
                        .orElse(false));
            }
            await().atMost(WAIT).until(() -> leaderAmong(coordinators) != null);
            await().atMost(WAIT).until(() -> workers.stream().allMatch(w -> w.worker().isRegistered()));
            assertThat(leader()
                .post("/api/v1/cluster/pipeline-groups", JSON.writeValueAsString(TestGroups.threeStages(GROUP)))
                .status()).isEqualTo(201);
            await().atMost(WAIT).until(() -> PIPELINES.stream().allMatch(p -> runningOn(p) != null));
            sampler = new Thread(this::sample, "heartbeat-sampler");
            sampler.start();
        }

        /** Every 100 ms: which fresh heartbeats report each pipeline. */
        private void sample() {
            while (sampling.get()) {
                Map<String, Set<String>> hosts = new HashMap<>();
                PIPELINES.forEach(p -> hosts.put(p, new HashSet<>()));
                long now = System.nanoTime();
                latest.forEach((worker, seen) -> {
                    if (now - seen.at() < fresh.toNanos()) {
                        seen.beat()
                            .pipelineMetrics()
                            .stream()
                            .filter(m -> GROUP.equals(m.group()))
                            .forEach(m -> hosts.get(m.pipelineName()).add(worker));
                    }
                });
                samples.add(hosts);
                hosts.forEach((p, on) -> {
                    hostsSeen.computeIfAbsent(p, k -> ConcurrentHashMap.newKeySet()).addAll(on);
                    if (on.size() > 1 || exclusive && on.size() != 1) {
                        violations.add("pipeline " + p + " on " + on + " at sample " + samples.size());
                    }
                });
                try {
                    Thread.sleep(100);
                }
                catch (InterruptedException e) {
                    return;
                }
            }
        }

        /**
         * Publishes 100 events per second into {@code _external -> a}, each stored once
         * (message id).
         */
        void loadFor(Duration duration) throws Exception {
            JetStream js = observer.jetStream();
            String subject = new RouteEdge(GROUP, Subjects.EXTERNAL, "a").subject();
            long end = System.nanoTime() + duration.toNanos();
            while (System.nanoTime() < end) {
                int n = published.getAndIncrement();
                byte[] event = ("{\"event_type\": \"Probe\", \"fields\": {\"n\": " + n + "}}")
                    .getBytes(StandardCharsets.UTF_8);
                Headers headers = new Headers().put("Nats-Msg-Id", "load-" + n);
                // On three servers the routing stream may be electing a leader (its
                // server killed): the same
                // message id again until it is stored, a duplicate then meaning an
                // earlier try was.
                long giveUp = System.nanoTime() + WAIT.toNanos();
                for (int tries = 1;; tries++) {
                    try {
                        PublishAck ack = js.publish(subject, headers, event);
                        assertThat(ack.isDuplicate() && tries == 1).as("load-%d stored twice", n).isFalse();
                        break;
                    }
                    catch (IOException | JetStreamApiException e) {
                        if (System.nanoTime() > giveUp) {
                            throw e;
                        }
                        Thread.sleep(250);
                    }
                }
                Thread.sleep(10);
            }
        }

        void awaitEveryEventApplied() {
            Set<Integer> expected = new HashSet<>();
            IntStream.range(0, published.get()).forEach(expected::add);
            await().atMost(WAIT).untilAsserted(() -> {
                Set<Integer> applied = new HashSet<>();
                workers.forEach(w -> applied.addAll(TestGroups.numbers(w.recorded(GROUP))));
                assertThat(applied).as("events applied by the last pipeline, on any worker").containsAll(expected);
            });
        }

        ClusterProcess leader() {
            ClusterProcess leader = leaderAmong(coordinators);
            assertThat(leader).isNotNull();
            return leader;
        }

        ClusterProcess leaderAmong(List<ClusterProcess> candidates) {
            for (ClusterProcess candidate : candidates) {
                if (candidate.isAlive()) {
                    JsonNode answer = candidate.get("/api/v1/cluster/leader")
                        .map(ClusterNode.Response::body)
                        .orElse(null);
                    if (answer != null && answer.path("this_node_leads").asBoolean()) {
                        return candidate;
                    }
                }
            }
            return null;
        }

        long epoch(ClusterProcess coordinator) {
            return coordinator.get("/api/v1/cluster/leader").orElseThrow().body().path("epoch").asLong();
        }

        ClusterNode hostOf(String pipeline) {
            String worker = runningOn(pipeline);
            return workers.stream().filter(w -> w.name().equals(worker)).findFirst().orElseThrow();
        }

        /** The worker whose fresh heartbeat reports the pipeline, or {@code null}. */
        String runningOn(String pipeline) {
            long now = System.nanoTime();
            for (Map.Entry<String, Seen> e : latest.entrySet()) {
                if (now - e.getValue().at() < fresh.toNanos() && e.getValue()
                    .beat()
                    .pipelineMetrics()
                    .stream()
                    .anyMatch(m -> GROUP.equals(m.group()) && pipeline.equals(m.pipelineName()))) {
                    return e.getKey();
                }
            }
            return null;
        }

        @Override
        public void close() throws Exception {
            sampling.set(false);
            if (sampler != null) {
                sampler.join(2000);
            }
            coordinators.forEach(ClusterProcess::close);
            workers.forEach(ClusterNode::close);
            observer.close();
        }

    }

    private record Seen(WorkerHeartbeat beat, long at) {
    }

}
