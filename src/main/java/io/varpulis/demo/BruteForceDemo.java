package io.varpulis.demo;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import io.varpulis.cluster.GroupResources;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishReceipt;
import io.varpulis.transport.TransportSettings;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The main job (SPEC section 7, issue 4): brute-force detection on a real sshd log, carried by a coordinator and two
 * workers in separate JVMs on the jetstream substrate, with the worker hosting {@code detect} killed (SIGKILL)
 * half-way and restarted. It ends with a report and exits 0 only when nothing was lost and the alerts equal those
 * of the same processors run in this process without any kill.
 * <p>Group {@code ssh-bruteforce}: {@code _external -> ingress} (raw lines, {@code sshd-parse}),
 * {@code ingress -> detect} ({@code SshAuthFailure}, {@code brute-force}), {@code detect -> alerts}
 * ({@code BruteForceSuspected}, {@code alert-file}). The group's consumers, state and routed events left by an
 * earlier run are purged first; parked events are never touched.
 */
public final class BruteForceDemo {

    /** The group the job deploys. */
    static final String GROUP = "ssh-bruteforce";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(120);
    private static final int PUBLISH_ATTEMPTS = 30;
    private static final ObjectMapper JSON = new EventCodec().mapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * The run's nodes never run open (SPEC section 10): they get the jar's user {@code varpulis} (ADMIN) with a
     * password made for this run, and the demo's own API calls send it.
     */
    private static final String NODE_PASSWORD = UUID.randomUUID().toString();
    private static final String AUTHORIZATION = "Basic " + Base64.getEncoder().encodeToString(
            ("varpulis:" + NODE_PASSWORD).getBytes(StandardCharsets.UTF_8));

    private final DemoOptions options;
    private final PrintStream out;
    private String coordinatorDurable;

    private BruteForceDemo(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /**
     * Runs the job and prints the report on standard output.
     *
     * @param args {@code [--input PATH] [--year YYYY] [--alerts-out PATH] [--nats-url URL] [--rate N] [--no-kill]}
     * @return the exit status: 0 when nothing was lost and the alerts are the expected ones, 1 otherwise, 2 for bad
     * arguments or an environment that cannot run it
     */
    public static int run(String[] args) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        try {
            return new BruteForceDemo(options, System.out).execute() ? 0 : 1;
        } catch (IllegalArgumentException e) {
            System.err.println("the demo could not run: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            System.err.println("the demo could not run: " + e);
            return 2;
        }
    }

    /**
     * @param line   a raw log line
     * @param number its 1-based line number
     * @param year   the year of its syslog timestamp (see {@link SyslogYears})
     * @return the {@code SshLogLine} event injected for it
     */
    static Event lineEvent(String line, int number, int year) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put(SshEvents.LINE, line);
        fields.put(SshEvents.LINE_NUMBER, number);
        fields.put(SshEvents.YEAR, year);
        return Event.of(SshEvents.LOG_LINE, fields);
    }

    /**
     * @param alertsFile where the {@code alerts} pipeline writes
     * @param year       the syslog year
     * @return the group
     */
    static PipelineGroupSpec group(Path alertsFile, int year) {
        return new PipelineGroupSpec(GROUP, List.of(
                new PipelineSpec("ingress", new ProcessorSpec("sshd-parse", Map.of("year", year))),
                new PipelineSpec("detect", new ProcessorSpec("brute-force", Map.of("threshold", 5, "window", "5m"))),
                new PipelineSpec("alerts", new ProcessorSpec("alert-file",
                        Map.of("path", alertsFile.toAbsolutePath().toString())))),
                List.of(new RouteSpec("_external", "ingress", List.of(SshEvents.LOG_LINE)),
                        new RouteSpec("ingress", "detect", List.of(SshEvents.AUTH_FAILURE)),
                        new RouteSpec("detect", "alerts", List.of(SshEvents.BRUTE_FORCE_SUSPECTED))));
    }

    private boolean execute() throws Exception {
        long pid = ProcessHandle.current().pid();
        // Unique per run and process: message ids, node ids and the api-key never meet another run's on a shared
        // server.
        String runId = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-" + pid;
        List<String> lines = readInput();
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("the input holds no lines");
        }
        int[] years = SyslogYears.of(lines, options.year());
        Path runDir = Files.createTempDirectory("varpulis-demo-" + runId + "-");
        Path alertsFile = options.alertsOut() != null ? options.alertsOut() : runDir.resolve("alerts.jsonl");
        ExpectedAlerts.Reference expected = ExpectedAlerts.of(lines, years);
        out.printf("Varpulis brute-force detection, run %s%n", runId);
        out.printf("input: %s (%d lines)%n", options.input() == null ? "bundled sample loghub OpenSSH_2k "
                + "(see sample/LOGHUB-LICENSE.txt)" : options.input(), lines.size());
        out.printf("alerts file: %s%nnode logs: %s%n", alertsFile, runDir);

        LocalNatsServer local = null;
        String url = options.natsUrl();
        if (!jetStreamAt(url)) {
            if (options.natsUrlGiven()) {
                throw new IllegalArgumentException("no JetStream server answers at " + url + ": start nats-server "
                        + "-js there, or leave out --nats-url / VARPULIS_NATS_URL to let the demo start one");
            }
            local = LocalNatsServer.start();
            url = local.url();
            out.printf("nats: nothing with JetStream at %s; started nats-server -js at %s%n", options.natsUrl(), url);
        } else {
            out.printf("nats: %s (JetStream)%n", url);
        }
        List<NodeProcess> nodes = new ArrayList<>();
        NatsConnectionEvents events = new NatsConnectionEvents(Duration.ofSeconds(1));
        try (Connection connection = Nats.connect(new Options.Builder().server(url).maxReconnects(-1)
                .reconnectWait(Duration.ofSeconds(1)).connectionListener(events).errorListener(events).build())) {
            PipelineGroupSpec group = group(alertsFile, options.year());
            JetStreamAdmin admin = new JetStreamAdmin(connection, null);
            admin.verifyJetStream();
            NatsProperties.JetStream defaults = new NatsProperties.JetStream();
            admin.provision(List.of(VarpulisJetStream.routing(defaults), VarpulisJetStream.heartbeat(defaults),
                    VarpulisJetStream.deadLetters(defaults)), List.of());
            GroupResources.purge(connection, group);
            Map<String, Long> parkedBefore = parked(connection.jetStreamManagement(), group);

            String apiKey = "demo-" + runId;
            String coordinatorId = "demo-" + pid + "-coordinator";
            int[] ports = NodeProcess.freePorts(3);
            NodeProcess coordinator = node(coordinatorId, "coordinator", url, runDir, apiKey, coordinatorId,
                    ports[0]);
            NodeProcess worker1 = node("demo-" + pid + "-worker-1", "worker", url, runDir, apiKey, coordinatorId,
                    ports[1]);
            NodeProcess worker2 = node("demo-" + pid + "-worker-2", "worker", url, runDir, apiKey, coordinatorId,
                    ports[2]);
            coordinatorDurable = DurableNames.heartbeatConsumer(coordinatorId);
            nodes.addAll(List.of(coordinator, worker1, worker2));
            for (NodeProcess node : nodes) {
                node.start();
            }
            for (NodeProcess node : nodes) {
                node.awaitReady(READY_TIMEOUT);
            }
            out.printf("nodes: %s (pid %d), %s (pid %d), %s (pid %d)%n", coordinator.name(), coordinator.pid(),
                    worker1.name(), worker1.pid(), worker2.name(), worker2.pid());
            awaitWorkers(coordinator, 2);
            post(coordinator, "/api/v1/cluster/pipeline-groups", group);
            String detectHost = awaitRunning(coordinator, group);
            out.printf("group %s deployed: %s%n", GROUP, placement(coordinator));

            NodeProcess victim = detectHost.equals(worker1.name()) ? worker1 : worker2;
            Instant killedAt = stream(connection, lines, years, runId, victim);
            awaitDrained(connection.jetStreamManagement(), group);
            if (killedAt != null) {
                victim.awaitReady(READY_TIMEOUT);
                awaitRegistration(coordinator, victim.name(), killedAt);
                out.printf("%s is back: registered again with the coordinator; placement now %s%n", victim.name(),
                        placement(coordinator));
            }
            Report report = report(connection.jetStreamManagement(), group, parkedBefore, alertsFile, expected,
                    killedAt != null);
            report.print(out);
            // Leave a shared server as it was found: the group, its consumers, state and routed events go; the
            // alert file and anything parked in the DLQ stay.
            delete(coordinator, "/api/v1/cluster/pipeline-groups/" + GROUP + "?purge=true");
            return report.ok();
        } finally {
            for (NodeProcess node : nodes) {
                node.stop();
            }
            if (coordinatorDurable != null && local == null) {
                forgetCoordinator(url, coordinatorDurable);
            }
            if (local != null) {
                local.close();
            }
        }
    }

    /** Streams the lines at the configured rate, killing and restarting the detect host half-way; returns when. */
    private Instant stream(Connection connection, List<String> lines, int[] years, String runId,
                           NodeProcess detectHost) throws Exception {
        Instant killedAt = null;
        try (ClusterTransport transport = ClusterTransports.create(connection, Substrate.JETSTREAM,
                new JetStreamAdmin(connection, null), TransportSettings.defaults())) {
            String subject = new RouteEdge(GROUP, "_external", "ingress").subject();
            EventCodec codec = new EventCodec();
            long nanosPerLine = 1_000_000_000L / options.rate();
            long started = System.nanoTime();
            List<CompletableFuture<PublishReceipt>> receipts = new ArrayList<>();
            int killAt = lines.size() / 2;
            for (int i = 0; i < lines.size(); i++) {
                if (options.kill() && i == killAt) {
                    killedAt = Instant.now();
                    long pid = detectHost.kill();
                    out.printf("line %d: killed %s (pid %d, hosting detect) with SIGKILL%n", i, detectHost.name(),
                            pid);
                    detectHost.start();
                    out.printf("line %d: restarted %s (pid %d)%n", i, detectHost.name(), detectHost.pid());
                }
                receipts.add(publishUntilStored(transport, new OutboundMessage(subject,
                        codec.encode(lineEvent(lines.get(i), i + 1, years[i])), runId + ":line:" + (i + 1)),
                        PUBLISH_ATTEMPTS));
                long due = started + (i + 1) * nanosPerLine;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
            }
            CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))
                    .get(PUBLISH_ATTEMPTS * 6L, TimeUnit.SECONDS);
            out.printf("streamed %d lines into %s (every PubAck received)%n", lines.size(), subject);
        }
        return killedAt;
    }

    /**
     * Publishes until the stream confirms, retrying a failed publish (server restarting, PubAck timeout) every
     * second with the same Nats-Msg-Id, so a retry of a message that was in fact stored is dropped as a duplicate.
     */
    private CompletableFuture<PublishReceipt> publishUntilStored(ClusterTransport transport, OutboundMessage message,
                                                                 int attemptsLeft) {
        return transport.publish(message).handle((receipt, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(receipt);
            }
            if (attemptsLeft <= 1) {
                return CompletableFuture.<PublishReceipt>failedFuture(error);
            }
            out.printf("publish of %s not confirmed (%s); retrying%n", message.messageId(), error.getMessage());
            return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS))
                    .thenCompose(ignored -> publishUntilStored(transport, message, attemptsLeft - 1));
        }).thenCompose(f -> f);
    }

    private void awaitRegistration(NodeProcess coordinator, String workerId, Instant after) throws Exception {
        until(READY_TIMEOUT, workerId + " did not register again; see " + coordinator.log().getParent(), () -> {
            for (JsonNode worker : get(coordinator, "/api/v1/cluster/workers")) {
                JsonNode record = worker.path("worker");
                if (record.path("worker_id").asText().equals(workerId)
                        && Instant.parse(record.path("registered_at").asText()).isAfter(after)) {
                    return true;
                }
            }
            return false;
        });
    }

    /** This run's coordinator id is never used again: remove its durable heartbeat consumer from the server. */
    private static void forgetCoordinator(String url, String durable) {
        try (Connection connection = Nats.connect(new Options.Builder().server(url).build())) {
            connection.jetStreamManagement().deleteConsumer(VarpulisJetStream.HEARTBEAT_STREAM, durable);
        } catch (Exception e) {
            // Left to the consumer's inactive_threshold (7 days).
        }
    }

    private void awaitDrained(JetStreamManagement jsm, PipelineGroupSpec group) throws Exception {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        int quiet = 0;
        while (System.nanoTime() < deadline) {
            boolean idle = true;
            for (RouteEdge edge : edges(group)) {
                ConsumerInfo info = consumer(jsm, edge);
                idle &= info != null && info.getNumPending() == 0 && info.getNumAckPending() == 0;
            }
            quiet = idle ? quiet + 1 : 0;
            if (quiet == 3) {
                return;
            }
            Thread.sleep(500);
        }
        out.printf("consumers still had pending messages after %d s%n", DRAIN_TIMEOUT.toSeconds());
    }

    private Report report(JetStreamManagement jsm, PipelineGroupSpec group, Map<String, Long> parkedBefore,
                          Path alertsFile, ExpectedAlerts.Reference expected, boolean killed) throws Exception {
        Map<String, Long> stored = storedPerSubject(jsm);
        Map<String, Long> parkedAfter = parked(jsm, group);
        List<Report.EdgeRow> rows = new ArrayList<>();
        for (RouteEdge edge : edges(group)) {
            ConsumerInfo info = consumer(jsm, edge);
            long published = stored.getOrDefault(edge.subject(), 0L);
            long pending = info == null ? published : info.getNumPending() + info.getNumAckPending();
            long parked = parkedAfter.getOrDefault(edge.to(), 0L) - parkedBefore.getOrDefault(edge.to(), 0L);
            long deliveries = info == null ? 0 : info.getDelivered().getConsumerSequence();
            long redelivered = Math.max(0, deliveries - (published - (info == null ? 0 : info.getNumPending())));
            rows.add(new Report.EdgeRow(edge, published, published - pending - parked, redelivered, parked));
        }
        Set<String> alerts = new TreeSet<>();
        if (Files.exists(alertsFile)) {
            for (String line : Files.readAllLines(alertsFile, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    alerts.add(ExpectedAlerts.identity(JSON.readValue(line, new TypeReference<Map<String, Object>>() {
                    })));
                }
            }
        }
        return new Report(expected, rows, alerts, alertsFile, killed);
    }

    private List<RouteEdge> edges(PipelineGroupSpec group) {
        return group.routes().stream().map(r -> new RouteEdge(group.name(), r.fromPipeline(), r.toPipeline()))
                .toList();
    }

    private static ConsumerInfo consumer(JetStreamManagement jsm, RouteEdge edge) throws Exception {
        try {
            return jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM,
                    DurableNames.routeConsumer(edge.to(), edge.subject()));
        } catch (io.nats.client.JetStreamApiException e) {
            return null;
        }
    }

    private static Map<String, Long> storedPerSubject(JetStreamManagement jsm) throws Exception {
        Map<String, Long> counts = new LinkedHashMap<>();
        List<Subject> subjects = jsm.getStreamInfo(VarpulisJetStream.ROUTING_STREAM,
                StreamInfoOptions.filterSubjects("varpulis.cluster.pipeline." + GROUP + ".>"))
                .getStreamState().getSubjects();
        if (subjects != null) {
            subjects.forEach(s -> counts.put(s.getName(), s.getCount()));
        }
        return counts;
    }

    private static Map<String, Long> parked(JetStreamManagement jsm, PipelineGroupSpec group) throws Exception {
        Map<String, Long> counts = new LinkedHashMap<>();
        List<Subject> subjects = jsm.getStreamInfo(VarpulisJetStream.DLQ_STREAM,
                StreamInfoOptions.filterSubjects(DurableNames.DLQ_ROOT + ".>")).getStreamState().getSubjects();
        if (subjects != null) {
            for (PipelineSpec pipeline : group.pipelines()) {
                String subject = DurableNames.dlqSubject(pipeline.name());
                subjects.stream().filter(s -> s.getName().equals(subject))
                        .forEach(s -> counts.put(pipeline.name(), s.getCount()));
            }
        }
        return counts;
    }

    private List<String> readInput() throws IOException {
        if (options.input() != null) {
            return lines(Files.readAllBytes(options.input()));
        }
        try (InputStream sample = BruteForceDemo.class.getResourceAsStream("/sample/OpenSSH_2k.log")) {
            if (sample == null) {
                throw new IOException("the bundled sample log is missing from the jar; pass --input PATH");
            }
            return lines(sample.readAllBytes());
        }
    }

    /**
     * Splits a log into lines (LF or CRLF), skipping blank ones. A line that is not valid UTF-8 is decoded as
     * ISO-8859-1, which keeps every byte: it is then parked as malformed with its text, never dropped.
     */
    static List<String> lines(byte[] log) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= log.length; i++) {
            if (i == log.length || log[i] == '\n') {
                int end = i > start && log[i - 1] == '\r' ? i - 1 : i;
                String line = decode(java.util.Arrays.copyOfRange(log, start, end));
                if (!line.isBlank()) {
                    lines.add(line);
                }
                start = i + 1;
            }
        }
        return lines;
    }

    private static String decode(byte[] line) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(line)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return new String(line, StandardCharsets.ISO_8859_1);
        }
    }

    private static boolean jetStreamAt(String url) {
        NatsConnectionEvents quiet = new NatsConnectionEvents(Duration.ZERO);
        Options options = new Options.Builder().server(url).connectionTimeout(Duration.ofSeconds(2))
                .noReconnect().connectionListener(quiet).errorListener(quiet).build();
        try (Connection connection = Nats.connect(options)) {
            return connection.getServerInfo().isJetStreamAvailable();
        } catch (Exception e) {
            return false;
        }
    }

    private NodeProcess node(String name, String role, String url, Path runDir, String apiKey, String coordinatorId,
                             int port) {
        List<String> properties = new ArrayList<>(List.of(
                // Only this run's workers may register: other nodes on a shared server are refused.
                "--varpulis.cluster.api-key=" + apiKey,
                "--varpulis.cluster.role=" + role,
                "--varpulis.nats.url=" + url,
                "--varpulis.nats.substrate=jetstream",
                "--varpulis.cluster.coordinator-id=" + coordinatorId,
                "--varpulis.cluster.heartbeat-interval=1s",
                "--varpulis.cluster.heartbeat-timeout=4s",
                "--varpulis.nats.jetstream.consumer.ack-wait=10s",
                "--spring.security.user.password=" + NODE_PASSWORD,
                "--spring.main.banner-mode=off"));
        if (role.equals("worker")) {
            properties.add("--varpulis.cluster.worker-id=" + name);
        }
        return NodeProcess.of(name, properties, runDir, port);
    }

    private void awaitWorkers(NodeProcess coordinator, int count) throws Exception {
        until(READY_TIMEOUT, count + " workers did not register; see the node logs in "
                + coordinator.log().getParent(), () -> get(coordinator, "/api/v1/cluster/workers").size() >= count);
    }

    private String awaitRunning(NodeProcess coordinator, PipelineGroupSpec group) throws Exception {
        until(READY_TIMEOUT, "the pipelines of " + GROUP + " did not start; see the node logs in "
                + coordinator.log().getParent(), () -> {
            int running = 0;
            for (JsonNode worker : get(coordinator, "/api/v1/cluster/workers")) {
                for (JsonNode metric : worker.path("worker").path("heartbeat").path("pipeline_metrics")) {
                    running += GROUP.equals(metric.path("group").asText()) ? 1 : 0;
                }
            }
            return running == group.pipelines().size();
        });
        return placement(coordinator).get("detect");
    }

    /** Polls a condition every 250 ms until it holds. */
    private static void until(Duration timeout, String failure, Check check) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (check.holds()) {
                return;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(failure + " (waited " + timeout.toSeconds() + " s)");
    }

    @FunctionalInterface
    private interface Check {
        boolean holds() throws Exception;
    }

    private Map<String, String> placement(NodeProcess coordinator) throws Exception {
        JsonNode group = get(coordinator, "/api/v1/cluster/pipeline-groups/" + GROUP);
        return JSON.convertValue(group.path("placement"), new TypeReference<Map<String, String>>() {
        });
    }

    private static JsonNode get(NodeProcess node, String path) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(node.uri(path))
                .header("Authorization", AUTHORIZATION).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return JSON.readTree(response.body());
    }

    private static void delete(NodeProcess node, String path) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(node.uri(path))
                .header("Authorization", AUTHORIZATION).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("DELETE " + path + " answered " + response.statusCode() + ": "
                    + response.body());
        }
    }

    private static void post(NodeProcess node, String path, Object body) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(node.uri(path))
                .header("Authorization", AUTHORIZATION).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("POST " + path + " answered " + response.statusCode() + ": "
                    + response.body());
        }
    }
}
