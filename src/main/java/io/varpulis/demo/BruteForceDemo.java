package io.varpulis.demo;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.varpulis.bruteforce.SshEvents;
import io.varpulis.cluster.coordinator.GroupResources;
import io.varpulis.demo.LogInput.LogLine;
import io.varpulis.jetstream.DeclarationKeeper;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.LeaderReachReconnect;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.PipelineGroupSpec;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The main job (SPEC section 7): brute-force detection on a real sshd log, carried by a
 * coordinator and two workers in separate JVMs on the jetstream substrate, with the
 * worker hosting {@code detect} killed (SIGKILL) mid-stream and restarted (and the
 * coordinator with it, on request). It ends with a report (see {@link Report}) and exits
 * 0 only when every line, failure and alert is accounted for against the same processors
 * run in this process without any kill.
 * <p>
 * Group {@code ssh-bruteforce}: {@code _external -> ingress} (raw lines,
 * {@code sshd-parse}), {@code ingress -> detect} ({@code SshAuthFailure},
 * {@code brute-force}), {@code detect -> alerts} ({@code BruteForceSuspected},
 * {@code alert-file}). By default the run starts a nats-server of its own, so it touches
 * nothing outside itself; on a server named with {@code --nats-url} the group's
 * consumers, state and routed events left by an earlier run are purged first, parked
 * events are never touched, and the group is removed at the end. The run directory (node
 * logs) is deleted after a run that passed and kept, and named, after one that failed.
 * <p>
 * Longer than most: it is the whole multi-process run (servers, nodes, feeding, the kill,
 * the wait, the report) as one script an operator reads from top to bottom.
 */
public final class BruteForceDemo {

    /** The group the job deploys. */
    static final String GROUP = "ssh-bruteforce";

    /**
     * The demo's own cluster name: on a shared server its leader lease, group entry,
     * registrations and heartbeats never meet the default cluster's ({@code varpulis}),
     * whose coordinators leave it alone (SPEC section 9).
     */
    static final String CLUSTER = "varpulis-demo";

    /**
     * The demo's driver leaves a server cut off from the stream leaders as a node does
     * with the default {@code varpulis.nats.jetstream.leader-reach.*}: 2 s checks, a
     * reconnect after 15 s (longer than a stream leader election).
     */
    static final LeaderReachReconnect.Settings LEADER_REACH = LeaderReachReconnect.Settings.DEFAULTS;

    /**
     * How often the demo asks whether the streams it declared are still there, as a
     * node's {@code varpulis.nats.jetstream.declarations-check-interval} (issue 43).
     */
    static final Duration DECLARATIONS_CHECK = Duration.ofSeconds(3);

    /** Progress (lines streamed, messages pending) is printed this often. */
    static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final DemoOptions options;

    private final PrintStream out;

    private final List<NodeProcess> nodes = new ArrayList<>();

    private final List<String> coordinatorDurables = new ArrayList<>();

    private String natsUrl;

    private LocalNatsServer local;

    private Path runDir;

    private ExpectedAlerts.Reference expected;

    /** The run's admin once it exists: what it and the nodes found lost (issue 43). */
    private volatile JetStreamAdmin admin;

    private boolean cleanedUp;

    private BruteForceDemo(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /**
     * Runs the job and prints the report on standard output.
     * @param args see {@link DemoOptions#USAGE}
     * @return the exit status: 0 when every line, failure and alert is accounted for, 1
     * otherwise (also when most lines could not be parsed), 2 for bad arguments or an
     * environment that cannot run it
     */
    public static int run(String[] args) {
        return run(args, System.getenv());
    }

    /**
     * The command line's {@code demo}: {@link #run(String[])} in a child JVM with the
     * nodes' JIT flags ({@link DemoJvm}), or in this one when it was given a
     * tiered-compilation flag, when {@value DemoJvm#RELAUNCH_VARIABLE} is {@code false},
     * or when the child cannot be started (said on standard error).
     * @param args see {@link DemoOptions#USAGE}
     * @return as {@link #run(String[])}
     */
    public static int launch(String[] args) {
        boolean help = args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"));
        if (!help && DemoJvm.relaunches(ManagementFactory.getRuntimeMXBean().getInputArguments(), System.getenv(),
                DemoJvm.isChild())) {
            try {
                return DemoJvm.relaunch(args);
            }
            catch (Exception e) {
                System.err.println("could not start the demo's JVM with " + String.join(" ", DemoJvm.FLAGS) + " (" + e
                        + "); running it in this one");
            }
        }
        DemoJvm.exitWithParent();
        return run(args);
    }

    /**
     * @param args see {@link DemoOptions#USAGE}
     * @param env the environment to read instead of the process's
     * ({@value DemoOptions#URL_VARIABLE}, {@value DemoOptions#REPLICAS_VARIABLE})
     * @return as {@link #run(String[])}
     */
    static int run(String[] args, Map<String, String> env) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println(DemoOptions.HELP);
            return 0;
        }
        DemoOptions options;
        try {
            options = DemoOptions.parse(args, env);
        }
        catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        BruteForceDemo demo = new BruteForceDemo(options, System.out);
        Thread interrupted = new Thread(() -> demo.cleanup(false), "varpulis-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(interrupted);
        try {
            boolean ok = demo.execute();
            demo.cleanup(ok);
            return ok ? 0 : 1;
        }
        catch (Exception e) {
            String message = e instanceof IllegalArgumentException || e instanceof IllegalStateException
                    ? e.getMessage() : e.toString();
            System.err.println("the demo could not run: " + message);
            demo.writeSummary(Report.Summary.failed(demo.expected, message, demo.lossesSoFar()));
            demo.cleanup(false);
            return 2;
        }
        finally {
            try {
                Runtime.getRuntime().removeShutdownHook(interrupted);
            }
            catch (IllegalStateException shuttingDown) {
                // The hook is running or ran: it cleaned up.
            }
        }
    }

    /**
     * @param alertsFile where the {@code alerts} pipeline writes: its file name, in the
     * nodes' alert directory (its parent, see {@link #alertDir})
     * @param options the year and zone of RFC 3164 timestamps
     * @return the group
     */
    static PipelineGroupSpec group(Path alertsFile, DemoOptions options) {
        return new PipelineGroupSpec(
                GROUP, List.of(
                        new PipelineSpec("ingress",
                                new ProcessorSpec("sshd-parse",
                                        Map.of("year", options.year(), "zone", options.zone().getId(),
                                                // A detect partitioned by src_ip takes
                                                // one failure per message (SPEC section
                                                // 11).
                                                "emit", options.detectPartitions() > 1 ? "events" : "batches"))),
                        new PipelineSpec("detect",
                                new ProcessorSpec("brute-force", Map.of("threshold", 5, "window", "5m")),
                                options.detectPartitions() > 1 ? options.detectPartitions() : null,
                                options.detectPartitions() > 1 ? SshEvents.SRC_IP : null),
                        new PipelineSpec("alerts",
                                new ProcessorSpec("alert-file", Map.of("path", alertsFile.getFileName().toString())))),
                List.of(new RouteSpec("_external", "ingress", List.of(SshEvents.LOG_LINE, SshEvents.LOG_LINES)),
                        new RouteSpec("ingress", "detect", List.of(SshEvents.AUTH_FAILURE, SshEvents.AUTH_FAILURES)),
                        new RouteSpec("detect", "alerts", List.of(SshEvents.BRUTE_FORCE_SUSPECTED))));
    }

    /**
     * The directory of the alert file: the nodes'
     * {@code varpulis.demo.processors.alert-dir}.
     */
    private static Path alertDir(Path alertsFile) {
        return alertsFile.toAbsolutePath().getParent();
    }

    private boolean execute() throws Exception {
        long pid = ProcessHandle.current().pid();
        // Unique per run and process: message ids, node ids and the api-key never meet
        // another run's on a shared
        // server.
        String runId = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-"
                + pid;
        List<LogLine> lines = LogInput.read(options.input());
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("the input holds no lines");
        }
        int[] years = SyslogYears.of(lines.stream().map(LogLine::text).toList(), options.year());
        expected = ExpectedAlerts.of(lines, years, options.zone());
        out.printf("Varpulis brute-force detection, run %s%n", runId);
        out.printf("input: %s: %d lines, %d failure lines (%d failures), %d other, %d unparsable%n",
                options.input() == null ? "bundled sample loghub OpenSSH_2k (see sample/LOGHUB-LICENSE.txt)"
                        : options.input(),
                lines.size(), expected.failureLineCount(), expected.failures(), expected.otherLines(),
                expected.malformed());
        if (expected.malformed() * 2 > expected.lines()) {
            return mostlyUnparsable();
        }
        int killAt = options.killAt() == null ? lines.size() / 2 : options.killAt();
        if (options.kill() != DemoOptions.Kill.NONE && killAt >= lines.size()) {
            throw new IllegalArgumentException(
                    "--kill-at " + killAt + " is not before the last line: the input has " + lines.size() + " lines");
        }
        natsUrl = options.natsUrl();
        if (natsUrl == null) {
            local = LocalNatsServer.start();
            natsUrl = local.url();
            out.printf("nats: started nats-server -js at %s for this run (--nats-url names a shared one): %s%n",
                    natsUrl, local.describe());
        }
        else if (!jetStreamAt(natsUrl)) {
            throw new IllegalArgumentException("no JetStream server answers at " + natsUrl + ": start nats-server "
                    + "-js there, or leave out --nats-url / " + DemoOptions.URL_VARIABLE + " to let the demo start "
                    + "its own");
        }
        else {
            out.printf("nats: %s (JetStream), streams and state with %d replica(s)%n", natsUrl, options.replicas());
        }
        runDir = Files.createTempDirectory("varpulis-demo-" + runId + "-");
        Path alertsFile = options.alertsOut() != null ? options.alertsOut() : runDir.resolve("alerts.jsonl");
        out.printf("alerts file: %s%nnode logs: %s%n", alertsFile, runDir);
        NatsConnectionEvents events = new NatsConnectionEvents(Duration.ofSeconds(1));
        try (Connection connection = Nats.connect(new Options.Builder().server(natsUrl)
            .maxReconnects(-1)
            .reconnectWait(Duration.ofSeconds(1))
            .connectionListener(events)
            .errorListener(events)
            .build())) {
            PipelineGroupSpec group = group(alertsFile, options);
            LogFeeder.checkLineSizes(lines, years, connection.getMaxPayload());
            JetStreamAdmin admin = new JetStreamAdmin(connection, null);
            admin.verifyJetStream();
            this.admin = admin;
            admin.provision(VarpulisJetStream.builtInStreams(options.replicas()), List.of());
            GroupResources.purge(connection, group, CLUSTER);
            Map<String, Long> parkedBefore = RunReport.parked(connection.jetStreamManagement(), group);
            MajorityReads majority = new MajorityReads(connection, RunReport.streams(options), out);
            // The demo publishes like a node: away from a server that cannot reach the
            // stream leaders; and it keeps its streams as a node does: what the servers
            // lose is named and declared again (issue 43).
            try (LeaderReachReconnect leaderReach = new LeaderReachReconnect(connection, admin, LEADER_REACH);
                    DeclarationKeeper keeper = new DeclarationKeeper(connection, admin, DECLARATIONS_CHECK, true);
                    GivenUpWatch givenUp = new GivenUpWatch(connection)) {
                DemoNodes run = DemoNodes.of(options, pid, natsUrl, runDir, alertDir(alertsFile), "demo-" + runId,
                        NodeApi.PASSWORD);
                NodeProcess coordinator = run.coordinator();
                NodeApi api = new NodeApi(coordinator);
                synchronized (this) {
                    nodes.addAll(run.all());
                    coordinatorDurables.addAll(run.coordinatorDurables());
                }
                for (NodeProcess node : nodes) {
                    node.start();
                }
                for (NodeProcess node : nodes) {
                    node.awaitReady(NodeApi.READY_TIMEOUT);
                }
                out.printf("nodes: %s%n",
                        String.join(", ", nodes.stream().map(n -> n.name() + " (pid " + n.pid() + ")").toList()));
                api.awaitWorkers(run.workers().size());
                api.post("/api/v1/cluster/pipeline-groups", group);
                String detectHost = api.awaitRunning(group);
                out.printf("group %s deployed: %s%n", GROUP, api.placement(GROUP));

                NodeProcess worker = run.worker(detectHost);
                List<NodeProcess> victims = switch (options.kill()) {
                    case NONE -> List.of();
                    case WORKER -> List.of(worker);
                    case WORKER_AND_COORDINATOR -> List.of(worker, coordinator);
                };
                SteadyWatch steadyWatch = new SteadyWatch(connection.jetStreamManagement(), group.inputEdges("detect"));
                LogFeeder.Streamed stream;
                Instant drained;
                try (steadyWatch) {
                    stream = new LogFeeder(options, out, admin).stream(connection, lines, years, runId, victims,
                            killAt);
                    drained = new DrainWatch(out, majority, expected, givenUp)
                        .awaitDrained(connection.jetStreamManagement(), group, alertsFile, stream.firstPublish());
                }
                if (stream.killedAt() != null) {
                    for (NodeProcess victim : victims) {
                        victim.awaitReady(NodeApi.READY_TIMEOUT);
                    }
                    api.awaitRegistration(worker.name(), stream.killedAt());
                    api.awaitWorkers(run.workers().size());
                    out.printf("%s back: registered with the coordinator again; placement now %s%n",
                            String.join(" and ", victims.stream().map(NodeProcess::name).toList()),
                            api.placement(GROUP));
                }
                String killed = stream.killedAt() == null ? null
                        : String.join(" and ", victims.stream().map(NodeProcess::name).toList())
                                + (victims.size() > 1 ? " were" : " was") + " killed (SIGKILL) after line " + killAt
                                + " and restarted";
                Report report = new RunReport(options, expected, out)
                    .read(connection, majority, group, parkedBefore, alertsFile, stream, drained, killed, givenUp,
                            steadyWatch.steady(lines.size(), stream.firstPublish()))
                    .withLosses(losses(admin));
                report.print(out);
                writeSummary(report.summary());
                // Leave a shared server as it was found: the group, its consumers, state
                // and routed events go; the
                // alert file and anything parked in the DLQ stay.
                api.delete("/api/v1/cluster/pipeline-groups/" + GROUP + "?purge=true");
                return report.ok();
            }
        }
    }

    /**
     * @return what the demo and every node found the servers lost so far, for a run that
     * stops before its report; empty before the demo reached the servers
     */
    private List<String> lossesSoFar() {
        JetStreamAdmin reached = admin;
        return reached == null ? List.of() : losses(reached);
    }

    /**
     * @return what the demo's own keeper and every node found the servers lost, each
     * prefixed by who found it; what each node's health lists and its meter counts is
     * printed when something was lost
     */
    private List<String> losses(JetStreamAdmin admin) {
        List<String> losses = new ArrayList<>();
        admin.losses().recent().forEach(loss -> losses.add("demo: " + loss.detail()));
        List<NodeProcess> all;
        synchronized (this) {
            all = List.copyOf(nodes);
        }
        List<String> perNode = new ArrayList<>();
        for (NodeProcess node : all) {
            List<String> found = NodeApi.losses(node);
            found.forEach(loss -> losses.add(node.name() + ": " + loss));
            perNode.add(node.name() + " " + found.size() + "/" + NodeApi.lossesCounted(node));
        }
        if (!losses.isEmpty()) {
            out.printf(
                    "losses listed by each node's jetstream health / counted by its varpulis_jetstream_losses_total:"
                            + " demo %d/%d, %s%n",
                    admin.losses().recent().size(), admin.losses().count(), String.join(", ", perNode));
        }
        return losses;
    }

    /**
     * Most lines unparsable: the wrong input or an unknown format, said loudly before any
     * node starts.
     */
    private boolean mostlyUnparsable() {
        String message = String.format(Locale.ROOT,
                "%d of %d lines (%.0f %%) have no RFC 3164 or RFC 3339 sshd " + "header: is this an sshd log? (%s)",
                expected.malformed(), expected.lines(), 100.0 * expected.malformed() / expected.lines(),
                String.join(" | ", expected.malformedSamples()));
        out.println();
        out.println("!!! " + message);
        out.println("!!! nothing was run; README.md (Quick start, the table of log lines) lists the forms read");
        out.println("RESULT: FAILED");
        writeSummary(Report.Summary.failed(expected, message));
        return false;
    }

    /**
     * This run's coordinator id is never used again: remove its durable heartbeat
     * consumer from the server.
     */
    private static void forgetCoordinator(String url, String durable) {
        try (Connection connection = Nats.connect(new Options.Builder().server(url).build())) {
            connection.jetStreamManagement().deleteConsumer(VarpulisJetStream.HEARTBEAT_STREAM, durable);
        }
        catch (Exception e) {
            // Left to the consumer's inactive_threshold (7 days).
        }
    }

    private static boolean jetStreamAt(String url) {
        NatsConnectionEvents quiet = new NatsConnectionEvents(Duration.ZERO);
        Options options = new Options.Builder().server(url)
            .connectionTimeout(Duration.ofSeconds(2))
            .noReconnect()
            .connectionListener(quiet)
            .errorListener(quiet)
            .build();
        try (Connection connection = Nats.connect(options)) {
            return connection.getServerInfo().isJetStreamAvailable();
        }
        catch (Exception e) {
            return false;
        }
    }

    private void writeSummary(Report.Summary summary) {
        if (options.summaryJson() == null) {
            return;
        }
        try {
            summary.write(options.summaryJson());
            out.printf("summary: %s%n", options.summaryJson());
        }
        catch (IOException e) {
            System.err.println("could not write the summary " + options.summaryJson() + ": " + e.getMessage());
        }
    }

    /**
     * Stops the nodes and the run's own nats-server, forgets the coordinator's durable on
     * a shared server, and deletes the run directory after a run that passed (unless
     * {@code --keep-logs}) or that stopped before any node started; after one that failed
     * or was interrupted later it keeps the node logs (and the default alert file) and
     * says where. Runs once, at the end or from the shutdown hook.
     */
    private synchronized void cleanup(boolean ok) {
        if (cleanedUp) {
            return;
        }
        cleanedUp = true;
        for (NodeProcess node : nodes) {
            try {
                node.stop();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (local == null && natsUrl != null) {
            coordinatorDurables.forEach(durable -> forgetCoordinator(natsUrl, durable));
        }
        if (local != null) {
            local.close();
        }
        if (runDir == null) {
            return;
        }
        boolean keep = (!ok || options.keepLogs()) && !nodes.isEmpty();
        try (Stream<Path> files = Files.walk(runDir)) {
            files.sorted(Comparator.reverseOrder())
                .filter(p -> !keep || !(p.equals(runDir) || p.getFileName().toString().endsWith(".log")
                        || p.equals(runDir.resolve("alerts.jsonl"))))
                .forEach(p -> p.toFile().delete());
        }
        catch (IOException e) {
            out.printf("could not clean up %s: %s%n", runDir, e.getMessage());
        }
        if (keep) {
            out.printf("node logs kept in %s%n", runDir);
        }
        else if (!nodes.isEmpty()) {
            out.printf("run directory %s removed (--keep-logs keeps it%s)%n", runDir,
                    options.alertsOut() == null ? ", --alerts-out PATH writes the alerts elsewhere" : "");
        }
    }

}
