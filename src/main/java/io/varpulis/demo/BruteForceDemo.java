package io.varpulis.demo;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import io.nats.client.support.NatsJetStreamConstants;
import io.varpulis.cluster.GroupResources;
import io.varpulis.demo.MajorityReads.View;
import io.varpulis.delivery.DeadLetterParker;
import io.varpulis.jetstream.DurableNames;
import io.varpulis.jetstream.JetStreamAdmin;
import io.varpulis.jetstream.JetStreamErrors;
import io.varpulis.jetstream.LeaderReachProperties;
import io.varpulis.jetstream.LeaderReachReconnect;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.nats.NatsConnectionEvents;
import io.varpulis.nats.NatsProperties;
import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.Event;
import io.varpulis.pipeline.EventBatch;
import io.varpulis.pipeline.EventCodec;
import io.varpulis.pipeline.JetStreamKeyValueState;
import io.varpulis.pipeline.KeyValueState.StateUnavailableException;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;
import io.varpulis.pipeline.RouteEdge;
import io.varpulis.transport.ClusterTransport;
import io.varpulis.transport.ClusterTransports;
import io.varpulis.transport.OutboundMessage;
import io.varpulis.transport.PublishException;
import io.varpulis.transport.PublishReceipt;
import io.varpulis.transport.TransportSettings;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The main job (SPEC section 7): brute-force detection on a real sshd log, carried by a coordinator and two workers
 * in separate JVMs on the jetstream substrate, with the worker hosting {@code detect} killed (SIGKILL) mid-stream and
 * restarted (and the coordinator with it, on request). It ends with a report (see {@link Report}) and exits 0 only
 * when every line, failure and alert is accounted for against the same processors run in this process without any
 * kill.
 * <p>Group {@code ssh-bruteforce}: {@code _external -> ingress} (raw lines, {@code sshd-parse}),
 * {@code ingress -> detect} ({@code SshAuthFailure}, {@code brute-force}), {@code detect -> alerts}
 * ({@code BruteForceSuspected}, {@code alert-file}). By default the run starts a nats-server of its own, so it
 * touches nothing outside itself; on a server named with {@code --nats-url} the group's consumers, state and routed
 * events left by an earlier run are purged first, parked events are never touched, and the group is removed at the
 * end. The run directory (node logs) is deleted after a run that passed and kept, and named, after one that failed.
 */
public final class BruteForceDemo {

    /** The group the job deploys. */
    static final String GROUP = "ssh-bruteforce";
    /**
     * The demo's own cluster name: on a shared server its leader lease, group entry, registrations and heartbeats
     * never meet the default cluster's ({@code varpulis}), whose coordinators leave it alone (SPEC section 9).
     */
    static final String CLUSTER = "varpulis-demo";
    /**
     * How long a node may take to start, register, or run the group: generous, as four JVMs starting at once on a
     * loaded host took up to 132 s (the fault suite, load average 40 on 2 cores).
     */
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(5);
    /** The drain is given up when nothing moved for this long (a NATS outage under test may last a minute). */
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(120);

    /** How long the state audit waits for a bucket's stream leader to answer one read. */
    private static final Duration AUDIT_READ_TIMEOUT = Duration.ofSeconds(5);
    /** The drain is polled this often (ms): the end-to-end time is the first poll that found nothing pending. */
    private static final long DRAIN_POLL_MILLIS = 100;
    /** Polls in a row that must find nothing pending (1.5 s) before the run is taken as drained. */
    private static final int QUIET_POLLS = 15;
    /** A publish is retried until then: longer than a leader election or a NATS restart. */
    private static final Duration PUBLISH_GIVE_UP = Duration.ofMinutes(5);
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Sleeping less than this costs more than it waits: the feeder catches up instead. */
    private static final long MIN_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
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
    private final List<NodeProcess> nodes = new ArrayList<>();
    /** Publish retries, and when the last was reported: at 20 000 lines/s an election fails thousands at once. */
    private final AtomicLong publishRetries = new AtomicLong();
    private final AtomicLong lastRetryNotice = new AtomicLong(System.nanoTime() - TimeUnit.SECONDS.toNanos(1));
    private final List<String> coordinatorDurables = new ArrayList<>();
    private String natsUrl;
    private LocalNatsServer local;
    private Path runDir;
    private ExpectedAlerts.Reference expected;
    private boolean cleanedUp;

    private BruteForceDemo(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /**
     * One line of the input.
     *
     * @param text the line, decoded as UTF-8, or as ISO-8859-1 (every byte kept) when it is not valid UTF-8
     * @param utf8 whether it was valid UTF-8
     */
    record LogLine(String text, boolean utf8) {
    }

    /**
     * Runs the job and prints the report on standard output.
     *
     * @param args see {@link DemoOptions#USAGE}
     * @return the exit status: 0 when every line, failure and alert is accounted for, 1 otherwise (also when most
     * lines could not be parsed), 2 for bad arguments or an environment that cannot run it
     */
    public static int run(String[] args) {
        return run(args, System.getenv());
    }

    /**
     * @param args see {@link DemoOptions#USAGE}
     * @param env  the environment to read instead of the process's ({@value DemoOptions#URL_VARIABLE},
     *             {@value DemoOptions#REPLICAS_VARIABLE})
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
        } catch (IllegalArgumentException e) {
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
        } catch (Exception e) {
            String message = e instanceof IllegalArgumentException || e instanceof IllegalStateException
                    ? e.getMessage() : e.toString();
            System.err.println("the demo could not run: " + message);
            demo.writeSummary(Report.Summary.failed(demo.expected, message));
            demo.cleanup(false);
            return 2;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(interrupted);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or ran: it cleaned up.
            }
        }
    }

    /**
     * @param line   a log line
     * @param number its 1-based line number
     * @param year   the year of its RFC 3164 timestamp (see {@link SyslogYears})
     * @return the {@code SshLogLine} event injected for it
     */
    static Event lineEvent(LogLine line, int number, int year) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put(SshEvents.LINE, line.text());
        fields.put(SshEvents.LINE_NUMBER, number);
        fields.put(SshEvents.YEAR, year);
        if (!line.utf8()) {
            fields.put(SshEvents.CHARSET, SshEvents.NOT_UTF8);
        }
        return Event.of(SshEvents.LOG_LINE, fields);
    }

    /**
     * @param alertsFile where the {@code alerts} pipeline writes: its file name, in the nodes' alert directory (its
     *                   parent, see {@link #alertDir})
     * @param options    the year and zone of RFC 3164 timestamps
     * @return the group
     */
    static PipelineGroupSpec group(Path alertsFile, DemoOptions options) {
        return new PipelineGroupSpec(GROUP, List.of(
                new PipelineSpec("ingress", new ProcessorSpec("sshd-parse",
                        Map.of("year", options.year(), "zone", options.zone().getId(),
                                // A detect partitioned by src_ip takes one failure per message (SPEC section 11).
                                "emit", options.detectPartitions() > 1 ? "events" : "batches"))),
                new PipelineSpec("detect", new ProcessorSpec("brute-force", Map.of("threshold", 5, "window", "5m")),
                        options.detectPartitions() > 1 ? options.detectPartitions() : null,
                        options.detectPartitions() > 1 ? SshEvents.SRC_IP : null),
                new PipelineSpec("alerts", new ProcessorSpec("alert-file",
                        Map.of("path", alertsFile.getFileName().toString())))),
                List.of(new RouteSpec("_external", "ingress", List.of(SshEvents.LOG_LINE, SshEvents.LOG_LINES)),
                        new RouteSpec("ingress", "detect", List.of(SshEvents.AUTH_FAILURE, SshEvents.AUTH_FAILURES)),
                        new RouteSpec("detect", "alerts", List.of(SshEvents.BRUTE_FORCE_SUSPECTED))));
    }

    /** The directory of the alert file: the nodes' {@code varpulis.demo.processors.alert-dir}. */
    private static Path alertDir(Path alertsFile) {
        return alertsFile.toAbsolutePath().getParent();
    }

    private boolean execute() throws Exception {
        long pid = ProcessHandle.current().pid();
        // Unique per run and process: message ids, node ids and the api-key never meet another run's on a shared
        // server.
        String runId = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-" + pid;
        List<LogLine> lines = readInput();
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("the input holds no lines");
        }
        int[] years = SyslogYears.of(lines.stream().map(LogLine::text).toList(), options.year());
        expected = ExpectedAlerts.of(lines, years, options.zone());
        out.printf("Varpulis brute-force detection, run %s%n", runId);
        out.printf("input: %s: %d lines, %d failure lines (%d failures), %d other, %d unparsable%n",
                options.input() == null ? "bundled sample loghub OpenSSH_2k (see sample/LOGHUB-LICENSE.txt)"
                        : options.input(), lines.size(), expected.failureLineCount(), expected.failures(),
                expected.otherLines(), expected.malformed());
        if (expected.malformed() * 2 > expected.lines()) {
            return mostlyUnparsable();
        }
        int killAt = options.killAt() == null ? lines.size() / 2 : options.killAt();
        if (options.kill() != DemoOptions.Kill.NONE && killAt >= lines.size()) {
            throw new IllegalArgumentException("--kill-at " + killAt + " is not before the last line: the input has "
                    + lines.size() + " lines");
        }
        natsUrl = options.natsUrl();
        if (natsUrl == null) {
            local = LocalNatsServer.start();
            natsUrl = local.url();
            out.printf("nats: started nats-server -js at %s for this run (--nats-url names a shared one): %s%n",
                    natsUrl, local.describe());
        } else if (!jetStreamAt(natsUrl)) {
            throw new IllegalArgumentException("no JetStream server answers at " + natsUrl + ": start nats-server "
                    + "-js there, or leave out --nats-url / " + DemoOptions.URL_VARIABLE + " to let the demo start "
                    + "its own");
        } else {
            out.printf("nats: %s (JetStream), streams and state with %d replica(s)%n", natsUrl, options.replicas());
        }
        runDir = Files.createTempDirectory("varpulis-demo-" + runId + "-");
        Path alertsFile = options.alertsOut() != null ? options.alertsOut() : runDir.resolve("alerts.jsonl");
        out.printf("alerts file: %s%nnode logs: %s%n", alertsFile, runDir);
        NatsConnectionEvents events = new NatsConnectionEvents(Duration.ofSeconds(1));
        try (Connection connection = Nats.connect(new Options.Builder().server(natsUrl).maxReconnects(-1)
                .reconnectWait(Duration.ofSeconds(1)).connectionListener(events).errorListener(events).build())) {
            PipelineGroupSpec group = group(alertsFile, options);
            checkLineSizes(lines, years, connection.getMaxPayload());
            JetStreamAdmin admin = new JetStreamAdmin(connection, null);
            admin.verifyJetStream();
            NatsProperties.JetStream streams = new NatsProperties.JetStream();
            streams.setReplicas(options.replicas());
            admin.provision(List.of(VarpulisJetStream.routing(streams), VarpulisJetStream.heartbeat(streams),
                    VarpulisJetStream.deadLetters(streams)), List.of());
            GroupResources.purge(connection, group, CLUSTER);
            Map<String, Long> parkedBefore = parked(connection.jetStreamManagement(), group);
            MajorityReads majority = new MajorityReads(connection, reportStreams(), out);
            // The demo publishes like a node: away from a server that cannot reach the stream leaders.
            try (LeaderReachReconnect leaderReach = new LeaderReachReconnect(connection, admin,
                    new LeaderReachProperties())) {
                DemoNodes run = DemoNodes.of(options, pid, natsUrl, runDir, alertDir(alertsFile), "demo-" + runId,
                        NODE_PASSWORD);
                NodeProcess coordinator = run.coordinator();
                synchronized (this) {
                    nodes.addAll(run.all());
                    coordinatorDurables.addAll(run.coordinatorDurables());
                }
                for (NodeProcess node : nodes) {
                    node.start();
                }
                for (NodeProcess node : nodes) {
                    node.awaitReady(READY_TIMEOUT);
                }
                out.printf("nodes: %s%n", String.join(", ", nodes.stream().map(n -> n.name() + " (pid " + n.pid() + ")")
                        .toList()));
                awaitWorkers(coordinator, run.workers().size());
                post(coordinator, "/api/v1/cluster/pipeline-groups", group);
                String detectHost = awaitRunning(coordinator, group);
                out.printf("group %s deployed: %s%n", GROUP, placement(coordinator));

                NodeProcess worker = run.worker(detectHost);
                List<NodeProcess> victims = switch (options.kill()) {
                    case NONE -> List.of();
                    case WORKER -> List.of(worker);
                    case WORKER_AND_COORDINATOR -> List.of(worker, coordinator);
                };
                Streamed stream = stream(connection, lines, years, runId, victims, killAt);
                Instant drained = awaitDrained(connection.jetStreamManagement(), majority, group, alertsFile,
                        stream.firstPublish());
                if (stream.killedAt() != null) {
                    for (NodeProcess victim : victims) {
                        victim.awaitReady(READY_TIMEOUT);
                    }
                    awaitRegistration(coordinator, worker.name(), stream.killedAt());
                    awaitWorkers(coordinator, run.workers().size());
                    out.printf("%s back: registered with the coordinator again; placement now %s%n",
                            String.join(" and ", victims.stream().map(NodeProcess::name).toList()),
                            placement(coordinator));
                }
                String killed = stream.killedAt() == null ? null : String.join(" and ", victims.stream()
                        .map(NodeProcess::name).toList()) + (victims.size() > 1 ? " were" : " was")
                        + " killed (SIGKILL) after line " + killAt + " and restarted";
                Report report = reportWhenNatsAnswers(connection, majority, group, parkedBefore, alertsFile, stream,
                        drained, killed);
                report.print(out);
                writeSummary(report.summary());
                // Leave a shared server as it was found: the group, its consumers, state and routed events go; the
                // alert file and anything parked in the DLQ stay.
                delete(coordinator, "/api/v1/cluster/pipeline-groups/" + GROUP + "?purge=true");
                return report.ok();
            }
        }
    }

    /** Most lines unparsable: the wrong input or an unknown format, said loudly before any node starts. */
    private boolean mostlyUnparsable() {
        String message = String.format(Locale.ROOT, "%d of %d lines (%.0f %%) have no RFC 3164 or RFC 3339 sshd "
                        + "header: is this an sshd log? (%s)", expected.malformed(), expected.lines(),
                100.0 * expected.malformed() / expected.lines(), String.join(" | ", expected.malformedSamples()));
        out.println();
        out.println("!!! " + message);
        out.println("!!! nothing was run; README.md (Quick start, the table of log lines) lists the forms read");
        out.println("RESULT: FAILED");
        writeSummary(Report.Summary.failed(expected, message));
        return false;
    }

    /**
     * How the stream went.
     *
     * @param firstPublish when the first line was published
     * @param seconds      first publish to the last PubAck
     * @param killedAt     when the victims were killed, or {@code null}
     */
    private record Streamed(Instant firstPublish, double seconds, Instant killedAt) {
    }

    /** Streams the lines at the configured rate, killing and restarting the victims after {@code killAt} lines. */
    private Streamed stream(Connection connection, List<LogLine> lines, int[] years, String runId,
                          List<NodeProcess> victims, int killAt) throws Exception {
        Instant killedAt = null;
        try (ClusterTransport transport = ClusterTransports.create(connection, Substrate.JETSTREAM,
                new JetStreamAdmin(connection, null), TransportSettings.defaults())) {
            String subject = new RouteEdge(GROUP, "_external", "ingress").subject();
            EventCodec codec = new EventCodec();
            long nanosPerLine = 1_000_000_000L / options.rate();
            int perMessage = linesPerMessage(options);
            long maxBytes = batchBytes(transport.maxPayload());
            Instant firstPublish = Instant.now();
            long started = System.nanoTime();
            long progressAt = started + PROGRESS_NANOS;
            List<CompletableFuture<PublishReceipt>> receipts = new ArrayList<>();
            int next = 0;
            while (next < lines.size()) {
                if (!victims.isEmpty() && killedAt == null && next >= killAt) {
                    killedAt = Instant.now();
                    for (NodeProcess victim : victims) {
                        long pid = victim.kill();
                        out.printf("line %d: killed %s (pid %d) with SIGKILL%n", next, victim.name(), pid);
                    }
                    for (NodeProcess victim : victims) {
                        victim.start();
                        out.printf("line %d: restarted %s (pid %d)%n", next, victim.name(), victim.pid());
                    }
                }
                // A message ends at the kill line, so that the kill comes after exactly --kill-at lines.
                int end = Math.min(lines.size(), next + perMessage);
                if (killedAt == null && !victims.isEmpty() && next < killAt && killAt < end) {
                    end = killAt;
                }
                publishLines(transport, codec, subject, runId, lines, years, next, end, maxBytes, receipts);
                next = end;
                long now = System.nanoTime();
                if (now >= progressAt) {
                    out.printf(Locale.ROOT, "streamed %d of %d lines (%.0f lines/s)%n", next, lines.size(),
                            next / ((now - started) / 1e9));
                    progressAt = now + PROGRESS_NANOS;
                }
                long wait = started + next * nanosPerLine - now;
                if (wait > MIN_SLEEP_NANOS) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
            }
            CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new))
                    .get(PUBLISH_GIVE_UP.toSeconds() + 60, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - started) / 1e9;
            out.printf(Locale.ROOT, "streamed %d lines into %s in %.1f s (%.0f lines/s, every PubAck received)%n",
                    lines.size(), subject, seconds, lines.size() / seconds);
            return new Streamed(firstPublish, seconds, killedAt);
        }
    }

    /**
     * Publishes lines {@code [from, to)} as one message: one {@code SshLogLine} with {@code --batch 1}, else an
     * {@code SshLogLines} batch, split in two (and again) while its JSON is over {@code maxBytes}. The message id,
     * {@code {run}:line:{n}} or {@code {run}:lines:{first}-{last}} (1-based), is the same on every retry.
     */
    private void publishLines(ClusterTransport transport, EventCodec codec, String subject, String runId,
                              List<LogLine> lines, int[] years, int from, int to, long maxBytes,
                              List<CompletableFuture<PublishReceipt>> receipts) {
        List<Event> events = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            events.add(lineEvent(lines.get(i), i + 1, years[i]));
        }
        boolean single = options.batch() == 1 && events.size() == 1;
        byte[] payload = codec.encode(single ? events.get(0) : EventBatch.of(SshEvents.LOG_LINES, events));
        if (payload.length > maxBytes && to - from > 1) {
            int middle = from + (to - from) / 2;
            publishLines(transport, codec, subject, runId, lines, years, from, middle, maxBytes, receipts);
            publishLines(transport, codec, subject, runId, lines, years, middle, to, maxBytes, receipts);
            return;
        }
        long maxPayload = transport.maxPayload();
        if (maxPayload > 0 && payload.length + DeadLetterParker.RAW_FORM_HEADER_RESERVE > maxPayload) {
            throw new IllegalArgumentException("line " + (from + 1) + " is " + payload.length + " bytes as an event, "
                    + "over what the NATS server takes (max_payload " + maxPayload + " bytes, less "
                    + DeadLetterParker.RAW_FORM_HEADER_RESERVE + " for the headers a park would need): it cannot be "
                    + "routed or parked. Nothing was published from line " + (from + 1) + " on; cut the line, or "
                    + "raise the server's max_payload");
        }
        String id = single ? runId + ":line:" + to : runId + ":lines:" + (from + 1) + "-" + to;
        receipts.add(publishUntilStored(transport, new OutboundMessage(subject, payload, id),
                System.nanoTime() + PUBLISH_GIVE_UP.toNanos()));
    }

    /**
     * Refuses, before any node starts, a log with a line that could not be routed alone: its event over the
     * server's max_payload less the room a park's headers need.
     *
     * @throws IllegalArgumentException naming the first such line, its size and the limit
     */
    private static void checkLineSizes(List<LogLine> lines, int[] years, long maxPayload) {
        if (maxPayload <= 0) {
            return;
        }
        EventCodec codec = new EventCodec();
        long limit = maxPayload - DeadLetterParker.RAW_FORM_HEADER_RESERVE;
        for (int i = 0; i < lines.size(); i++) {
            // In the event's JSON a character takes at most 6 bytes (a control character escaped): only a line
            // that could be over the limit is encoded to be sure.
            if (lines.get(i).text().length() * 6L + 100 > limit) {
                int bytes = codec.encode(lineEvent(lines.get(i), i + 1, years[i])).length;
                if (bytes > limit) {
                    throw new IllegalArgumentException("line " + (i + 1) + " is " + bytes + " bytes as an event, "
                            + "over what the NATS server takes (max_payload " + maxPayload + " bytes, less "
                            + DeadLetterParker.RAW_FORM_HEADER_RESERVE + " for the headers a park would need): it "
                            + "cannot be routed or parked. Nothing was published; cut the line, or raise the "
                            + "server's max_payload");
                }
            }
        }
    }

    /**
     * @return lines per message: {@code --batch}, but no more than a tenth of a second of lines at the rate (a slow
     * stream is not held back to fill a message)
     */
    static int linesPerMessage(DemoOptions options) {
        return Math.max(1, Math.min(options.batch(), options.rate() / 10));
    }

    /**
     * @return the most bytes of JSON one message of lines carries: half the server's max_payload (room for the
     * ingress's batch of failures and the parks of its lines), at most 512 KiB
     */
    private static long batchBytes(long maxPayload) {
        return maxPayload <= 0 ? 512 * 1024 : Math.min(512 * 1024, maxPayload / 2);
    }

    /**
     * Publishes until the stream confirms, retrying a failed publish (server restarting, leader election, PubAck
     * timeout) every second with the same Nats-Msg-Id, so a retry of a message that was in fact stored is dropped
     * as a duplicate.
     */
    private CompletableFuture<PublishReceipt> publishUntilStored(ClusterTransport transport, OutboundMessage message,
                                                                 long giveUpNanos) {
        return transport.publish(message).handle((receipt, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(receipt);
            }
            if (System.nanoTime() > giveUpNanos
                    || PublishException.classify(error) == PublishException.Kind.REFUSED) {
                // Refused (too large, a bad header): asking again would never be stored.
                return CompletableFuture.<PublishReceipt>failedFuture(error);
            }
            long retries = publishRetries.incrementAndGet();
            long now = System.nanoTime();
            long last = lastRetryNotice.get();
            if (now - last >= TimeUnit.SECONDS.toNanos(1) && lastRetryNotice.compareAndSet(last, now)) {
                out.printf("publish of %s not confirmed (%s); retrying every second with the same message id "
                        + "(%d retries so far)%n", message.messageId(), error.getMessage(), retries);
            }
            return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS))
                    .thenCompose(ignored -> publishUntilStored(transport, message, giveUpNanos));
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

    /**
     * Waits until every edge's consumer has nothing pending or unacknowledged (three polls in a row), printing
     * progress every 5 s and, once drained, when each pipeline was last seen with messages pending (the stage that
     * finished last is what bounded the run); gives up when nothing moved for {@link #DRAIN_TIMEOUT}.
     *
     * @return when the consumers were first seen drained, or now when they never were
     */
    private Instant awaitDrained(JetStreamManagement jsm, MajorityReads majority, PipelineGroupSpec group,
                                 Path alertsFile, Instant firstPublish) throws Exception {
        Map<String, Instant> busy = new LinkedHashMap<>();
        long lastMove = System.nanoTime();
        long progressAt = lastMove + PROGRESS_NANOS;
        String lastSeen = "";
        Instant idleSince = null;
        int quiet = 0;
        while (System.nanoTime() - lastMove < DRAIN_TIMEOUT.toNanos()) {
            List<String> pending = new ArrayList<>();
            long total = 0;
            try {
                for (RouteEdge edge : edges(group)) {
                    ConsumerInfo info = consumer(jsm, edge);
                    long left = info == null ? -1 : info.getNumPending() + info.getNumAckPending();
                    total += Math.max(left, 0);
                    if (left != 0) {
                        busy.put(edge.to(), Instant.now());
                    }
                    pending.add((edge.isPartition() ? edge.to() + "/" + edge.partition() : edge.to()) + " " + (left < 0 ? "not consuming yet" : left + " pending"));
                }
            } catch (IOException e) {
                // NATS away (restarting, electing a leader): not drained; given up only after DRAIN_TIMEOUT.
                pending = List.of("NATS not answering (" + e.getMessage() + ")");
                total = -1;
            }
            long alerts = alertLines(alertsFile);
            String seen = pending + "/" + alerts;
            if (!seen.equals(lastSeen)) {
                lastMove = System.nanoTime();
                lastSeen = seen;
            }
            boolean idle = total == 0 && !seen.contains("not consuming yet");
            idleSince = idle ? (idleSince == null ? Instant.now() : idleSince) : null;
            quiet = idle ? quiet + 1 : 0;
            if (quiet == QUIET_POLLS) {
                // Drained as the majority sees it, not as a server cut off from it remembers (issue 25, partition).
                if (majority.view().majority()) {
                    StringBuilder stages = new StringBuilder();
                    busy.forEach((to, at) -> stages.append(String.format(Locale.ROOT, " %s +%.2f s", to,
                            Duration.between(firstPublish, at).toNanos() / 1e9)));
                    out.printf("where the time went: each pipeline last seen with messages pending, after the first "
                            + "publish:%s%n", stages);
                    return idleSince;
                }
                majority.await(System.nanoTime() + DRAIN_TIMEOUT.toNanos());
                quiet = 0;
                idleSince = null;
                lastMove = System.nanoTime();
                continue;
            }
            if (System.nanoTime() >= progressAt) {
                View view = majority.view();
                if (view.minority()) {
                    out.printf("waiting for the pipelines through a server cut off from the cluster's majority: %s%n",
                            view.reason());
                    majority.await(System.nanoTime() + DRAIN_TIMEOUT.toNanos());
                    lastMove = System.nanoTime();
                }
                out.printf("waiting for the pipelines: %s; %d of %d alerts written%n", String.join(", ", pending),
                        alerts, expected.alerts().size());
                progressAt = System.nanoTime() + PROGRESS_NANOS;
            }
            Thread.sleep(DRAIN_POLL_MILLIS);
        }
        out.printf("the consumers still had messages pending and nothing moved for %d s%n",
                DRAIN_TIMEOUT.toSeconds());
        return Instant.now();
    }

    private static long alertLines(Path alertsFile) throws IOException {
        if (!Files.exists(alertsFile)) {
            return 0;
        }
        try (Stream<String> lines = Files.lines(alertsFile, StandardCharsets.UTF_8)) {
            return lines.filter(l -> !l.isBlank()).count();
        }
    }

    /**
     * The report, asked again while NATS does not answer (a cluster electing a leader, a server still down): the
     * pipelines may be drained before a killed server is back, and its figures must come from the server.
     */
    private Report reportWhenNatsAnswers(Connection connection, MajorityReads majority, PipelineGroupSpec group,
                                         Map<String, Long> parkedBefore, Path alertsFile, Streamed stream,
                                         Instant drained, String killed) throws Exception {
        long giveUp = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        while (true) {
            try {
                // Read between two majority views: a server cut off meanwhile would have answered from a stale one.
                majority.await(giveUp);
                Report report = report(connection, group, parkedBefore, alertsFile, stream, drained, killed);
                View after = majority.view();
                if (after.majority()) {
                    return report;
                }
                out.printf("the view changed while the report was read (%s); reading it again%n", after.reason());
            } catch (IOException | JetStreamApiException | StateUnavailableException e) {
                if (System.nanoTime() > giveUp) {
                    throw e;
                }
                out.printf("NATS did not answer while the report was read (%s); asking again in a second%n",
                        e.getMessage());
                Thread.sleep(1000);
            }
        }
    }

    private Report report(Connection connection, PipelineGroupSpec group, Map<String, Long> parkedBefore,
                          Path alertsFile, Streamed stream, Instant drained, String killed) throws Exception {
        JetStreamManagement jsm = connection.jetStreamManagement();
        Map<String, Long> stored = storedPerSubject(jsm);
        Map<String, Long> parkedAfter = parked(jsm, group);
        List<Report.EdgeRow> rows = new ArrayList<>();
        Set<String> parkedCounted = new HashSet<>();
        for (RouteEdge edge : edges(group)) {
            ConsumerInfo info = consumer(jsm, edge);
            long total = stored.getOrDefault(edge.subject(), 0L);
            Carried carried = carried(connection, edge.subject(), total);
            long distinct = carried.messages();
            long pending = info == null ? distinct : info.getNumPending() + info.getNumAckPending();
            // A pipeline's parked events are counted once, on its first edge (the DLQ subject is per pipeline).
            long parked = !parkedCounted.add(edge.to()) ? 0
                    : parkedAfter.getOrDefault(edge.to(), 0L) - parkedBefore.getOrDefault(edge.to(), 0L);
            long deliveries = info == null ? 0 : info.getDelivered().getConsumerSequence();
            long redelivered = Math.max(0, deliveries - (total - (info == null ? 0 : info.getNumPending())));
            rows.add(new Report.EdgeRow(edge, distinct, total - distinct,
                    Math.max(0, carried.events() - pending - parked), redelivered, parked, pending, carried.events()));
        }
        Map<String, Integer> alerts = new TreeMap<>();
        Set<String> doubled = new TreeSet<>();
        if (Files.exists(alertsFile)) {
            for (String line : Files.readAllLines(alertsFile, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    BruteForceAlert alert = BruteForceAlert.fromEvent(Event.of(SshEvents.BRUTE_FORCE_SUSPECTED,
                            JSON.readValue(line, new TypeReference<Map<String, Object>>() {
                            })));
                    String identity = ExpectedAlerts.identity(alert.srcIp(), alert.windowStart());
                    if (alerts.put(identity, alert.failures()) != null) {
                        doubled.add(identity);
                    }
                }
            }
        }
        // Done when every line was processed (drained, seen within a 0.1 s poll) and the last alert written.
        Instant end = alerts.isEmpty() ? drained : Collections.max(List.of(drained,
                Files.getLastModifiedTime(alertsFile).toInstant()));
        Report.Timing timing = new Report.Timing(stream.seconds(),
                Duration.between(stream.firstPublish(), end).toMillis() / 1000.0, options.rate());
        return new Report(expected, rows, alerts, doubled, auditState(connection), timing, alertsFile, killed);
    }

    /**
     * What the distinct messages of a subject carry.
     *
     * @param messages distinct {@code Nats-Msg-Id}s
     * @param events   events in them: a batch's elements, 1 for any other message
     */
    private record Carried(long messages, long events) {
    }

    /**
     * Counts the distinct {@code Nats-Msg-Id}s on a subject and the events they carry, with an ordered consumer: a
     * message stored twice (a retry after the duplicate window) counts once.
     *
     * @throws IOException when fewer than {@code stored} messages could be read: the report is read again
     */
    private static Carried carried(Connection connection, String subject, long stored) throws Exception {
        if (stored == 0) {
            return new Carried(0, 0);
        }
        EventCodec codec = new EventCodec();
        Set<String> ids = new HashSet<>();
        long read = 0;
        long events = 0;
        try (IterableConsumer consumer = connection.getStreamContext(VarpulisJetStream.ROUTING_STREAM)
                .createOrderedConsumer(new OrderedConsumerConfiguration().filterSubject(subject)).iterate()) {
            while (read < stored) {
                Message message = consumer.nextMessage(Duration.ofSeconds(5));
                if (message == null) {
                    break;
                }
                read++;
                String id = message.getHeaders() == null ? null
                        : message.getHeaders().getFirst(NatsJetStreamConstants.MSG_ID_HDR);
                if (ids.add(id == null ? "seq:" + message.metaData().streamSequence() : id)) {
                    events += eventsIn(codec, message.getData());
                }
            }
        }
        if (read < stored) {
            // A consumer that stalls (a server rejoining after a partition, an election) is a read to make again,
            // never a count: taken as one event each, the unread messages made a false FAILED (partition scenario).
            throw new IOException("read " + read + " of the " + stored + " messages stored on " + subject
                    + " (no message for 5 s)");
        }
        return new Carried(ids.size(), events);
    }

    /** @return the events a message carries: a batch's elements, else 1 (an undecodable message too) */
    private static long eventsIn(EventCodec codec, byte[] data) {
        try {
            Event event = codec.decode(data);
            return EventBatch.isBatch(event) ? EventBatch.elements(event).size() : 1;
        } catch (RuntimeException e) {
            return 1;
        }
    }

    /**
     * Holds detect's state bucket to the reference, window by window: an alerted window must be alerted (its count
     * frozen at the crossing), any other must hold the reference's count from as many distinct inputs (each failure
     * counted once, none missed).
     */
    private Report.StateAudit auditState(Connection connection) throws Exception {
        // A partitioned detect keeps each source's windows in its partition's bucket; the keys never overlap.
        Map<String, String> bucketOf = new HashMap<>();
        List<String> keys = new ArrayList<>();
        List<String> buckets = new ArrayList<>();
        for (int partition : detectPartitions()) {
            try {
                String name = JetStreamKeyValueState.bucketName(GROUP, "detect", partition);
                for (String key : connection.keyValue(name).keys()) {
                    keys.add(key);
                    bucketOf.put(key, name);
                }
                buckets.add(name);
            } catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != JetStreamErrors.STREAM_NOT_FOUND) {
                    // Not an answer about the bucket (a timeout while a killed server rejoins): the report is asked
                    // again, rather than every window called missing (a false FAILED seen in fault scenario b).
                    throw e;
                }
                // No bucket: every window shows as missing below.
            }
        }
        int applied = 0;
        int countedOnce = 0;
        int alertedWindows = 0;
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, ExpectedAlerts.Window> entry : expected.windows().entrySet()) {
            ExpectedAlerts.Window window = entry.getValue();
            // From the stream leader, as detect reads its state: a direct get may be answered by a replica that is
            // still catching up after a restart, and call a window written meanwhile missing (fault scenario b). The
            // key listing goes through an ordered consumer that may sit on such a replica too: a window it left out
            // is looked for in every bucket's leader before it is called missing.
            String bucket = bucketOf.get(entry.getKey());
            byte[] got = null;
            for (String candidate : bucket != null ? List.of(bucket) : buckets) {
                got = JetStreamKeyValueState.readFromLeader(connection, candidate, entry.getKey(), AUDIT_READ_TIMEOUT)
                        .orElse(null);
                if (got != null) {
                    break;
                }
            }
            String problem = compareWindow(window, got == null ? null : ExpectedAlerts.windowState(got,
                    entry.getKey()));
            if (problem == null) {
                applied += window.events();
                if (window.state().alerted()) {
                    alertedWindows++;
                } else {
                    countedOnce += window.events();
                }
            } else if (wrong.size() < Report.LISTED) {
                wrong.add(window.identity() + ": " + problem);
            }
        }
        Set<String> unexpected = new HashSet<>(keys);
        unexpected.removeAll(expected.windows().keySet());
        return new Report.StateAudit(applied, countedOnce, alertedWindows, wrong, unexpected.size());
    }

    /** @return the streams the report reads: routed events, the DLQ, detect's state buckets */
    private List<String> reportStreams() {
        List<String> streams = new ArrayList<>(List.of(VarpulisJetStream.ROUTING_STREAM, VarpulisJetStream.DLQ_STREAM));
        detectPartitions().forEach(p -> streams.add("KV_" + JetStreamKeyValueState.bucketName(GROUP, "detect", p)));
        return streams;
    }

    /** @return detect's partitions, {@link Partitioning#NONE} alone when it is unpartitioned */
    private List<Integer> detectPartitions() {
        int partitions = options.detectPartitions();
        return partitions == 1 ? List.of(Partitioning.NONE)
                : IntStream.range(0, partitions).boxed().toList();
    }

    /** @return what is wrong with a window's state, or {@code null} when it is the reference's */
    private static String compareWindow(ExpectedAlerts.Window window, BruteForceDetector.WindowState got) {
        BruteForceDetector.WindowState want = window.state();
        if (got == null) {
            return "no state (" + window.events() + " failure events expected)";
        }
        if (want.alerted()) {
            return got.alerted() ? null : "not alerted (" + got.failures() + " failures counted)";
        }
        if (got.alerted()) {
            return "alerted, but the reference counts only " + want.failures() + " failures";
        }
        boolean once = new HashSet<>(got.seen()).size() == got.seen().size();
        if (got.failures() == want.failures() && got.seen().size() == want.seen().size() && once) {
            return null;
        }
        return got.failures() + " failures from " + got.seen().size() + " inputs" + (once ? "" : " (one counted "
                + "twice)") + ", expected " + want.failures() + " from " + want.seen().size();
    }

    /** Every edge a consumer reads: a partitioned pipeline's repartitioner edges and its partitions'. */
    private List<RouteEdge> edges(PipelineGroupSpec group) {
        return group.pipelines().stream().flatMap(p -> group.consumedEdges(p.name()).stream()).toList();
    }

    private static ConsumerInfo consumer(JetStreamManagement jsm, RouteEdge edge) throws Exception {
        try {
            return jsm.getConsumerInfo(VarpulisJetStream.ROUTING_STREAM,
                    DurableNames.routeConsumer(edge.to(), edge.subject()));
        } catch (JetStreamApiException e) {
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

    private List<LogLine> readInput() throws IOException {
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
     * ISO-8859-1, which keeps every byte, and marked: it is then parked with its text, never dropped nor parsed.
     */
    static List<LogLine> lines(byte[] log) {
        List<LogLine> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= log.length; i++) {
            if (i == log.length || log[i] == '\n') {
                int end = i > start && log[i - 1] == '\r' ? i - 1 : i;
                LogLine line = decode(Arrays.copyOfRange(log, start, end));
                if (!line.text().isBlank()) {
                    lines.add(line);
                }
                start = i + 1;
            }
        }
        return lines;
    }

    private static LogLine decode(byte[] line) {
        try {
            return new LogLine(StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(line)).toString(), true);
        } catch (CharacterCodingException e) {
            return new LogLine(new String(line, StandardCharsets.ISO_8859_1), false);
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

    private void writeSummary(Report.Summary summary) {
        if (options.summaryJson() == null) {
            return;
        }
        try {
            summary.write(options.summaryJson());
            out.printf("summary: %s%n", options.summaryJson());
        } catch (IOException e) {
            System.err.println("could not write the summary " + options.summaryJson() + ": " + e.getMessage());
        }
    }

    /**
     * Stops the nodes and the run's own nats-server, forgets the coordinator's durable on a shared server, and
     * deletes the run directory after a run that passed (unless {@code --keep-logs}) or that stopped before any node
     * started; after one that failed or was interrupted later it keeps the node logs (and the default alert file)
     * and says where. Runs once, at the end or from the shutdown hook.
     */
    private synchronized void cleanup(boolean ok) {
        if (cleanedUp) {
            return;
        }
        cleanedUp = true;
        for (NodeProcess node : nodes) {
            try {
                node.stop();
            } catch (InterruptedException e) {
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
        } catch (IOException e) {
            out.printf("could not clean up %s: %s%n", runDir, e.getMessage());
        }
        if (keep) {
            out.printf("node logs kept in %s%n", runDir);
        } else if (!nodes.isEmpty()) {
            out.printf("run directory %s removed (--keep-logs keeps it%s)%n", runDir,
                    options.alertsOut() == null ? ", --alerts-out PATH writes the alerts elsewhere" : "");
        }
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
            return running == PipelineUnit.of(group).size();
        });
        Map<String, String> placement = placement(coordinator);
        return placement.containsKey("detect") ? placement.get("detect") : placement.get("detect/0");
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
