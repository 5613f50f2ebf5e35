package io.varpulis.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StreamInfoOptions;
import io.varpulis.jetstream.VarpulisJetStream;
import io.varpulis.pipeline.RouteEdge;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Scenarios a to d: the main job
 * ({@code java -jar target/varpulis-cluster-*.jar demo ...}) against servers this harness
 * controls, with a fault injected while the job streams. The demo reports its accounting
 * in {@code --summary-json} (lines read, failures expected and applied, per edge
 * published/applied/redelivered/parked/ duplicated, alerts expected and got, result); the
 * run passes when the demo exits 0 with result OK, exactly the reference alerts, and no
 * event parked beyond the log's malformed lines.
 */
final class DemoScenario {

    /** The demo's input edge, whose stored count tells how far the job has streamed. */
    static final RouteEdge INPUT = new RouteEdge("ssh-bruteforce", "_external", "ingress");

    /**
     * Issue 25's topology: three workers, one pipeline each, as the run that found the
     * bugs had; nothing killed by the demo itself.
     */
    static final List<String> THREE_WORKERS = List.of("--kill", "none", "--workers", "3");

    /**
     * Lines per message ({@code --batch}), the demo's default, passed so that the fault
     * lands where it says.
     */
    private static final int BATCH = 500;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How long a run may take by default, start to report. */
    static final Duration RUN_TIMEOUT = Duration.ofMinutes(20);

    private static final Pattern NODE_LOGS = Pattern.compile("node logs: (\\S+)");

    private static final Pattern TRIES = Pattern.compile("(\\d+) tries waited for it");

    private final Path jar;

    private final Path out;

    private final Path input;

    private final long lines;

    private final Duration timeout;

    /**
     * @param jar the node jar, which runs the demo
     * @param out where logs, summaries and alert files go
     * @param input the log the demo streams
     */
    DemoScenario(Path jar, Path out, Path input) throws IOException {
        this(jar, out, input, RUN_TIMEOUT);
    }

    /**
     * @param jar the node jar, which runs the demo
     * @param out where logs, summaries and alert files go
     * @param input the log the demo streams
     * @param timeout how long a run may take, start to report, before it is stopped and
     * fails ({@link #RUN_TIMEOUT} for the fault scenarios; a soak streams for longer)
     */
    DemoScenario(Path jar, Path out, Path input, Duration timeout) throws IOException {
        this.jar = jar;
        this.out = out;
        this.input = input;
        this.timeout = timeout;
        try (Stream<String> all = Files.lines(input, StandardCharsets.ISO_8859_1)) {
            this.lines = all.filter(l -> !l.isBlank()).count();
        }
    }

    /**
     * @return the non-blank lines of the log the demo streams
     */
    long lines() {
        return lines;
    }

    /**
     * The demo's input: {@code --input}, or the sample over {@code --days} consecutive
     * days made by {@code scripts/make-log.sh} (issue 14) into the output directory,
     * once.
     * @param options the suite's options
     * @param out the output directory
     * @return the log
     * @throws IllegalStateException when make-log.sh is missing or fails
     */
    static Path input(FaultOptions options, Path out) throws IOException, InterruptedException {
        if (!options.input().isEmpty()) {
            return Path.of(options.input());
        }
        Path log = out.resolve("sshd-" + options.days() + "d.log");
        if (Files.isRegularFile(log)) {
            return log;
        }
        Path makeLog = Path.of("scripts", "make-log.sh");
        if (!Files.isExecutable(makeLog)) {
            throw new IllegalStateException("scripts/make-log.sh (issue 14) is missing: pass --input=PATH");
        }
        Process make = new ProcessBuilder(makeLog.toString(), "--days", String.valueOf(options.days()), log.toString())
            .inheritIO()
            .start();
        if (make.waitFor() != 0) {
            throw new IllegalStateException("scripts/make-log.sh --days " + options.days() + " failed");
        }
        return log;
    }

    /** What the harness does to the servers or nodes while the job streams. */
    @FunctionalInterface
    interface Fault {

        /**
         * @param demo the running demo: its nodes, their pids and the pipelines' first
         * placement
         * @return what was done and measured
         */
        Injected inject(RunningDemo demo) throws Exception;

    }

    /**
     * What a fault did.
     *
     * @param note what was done and measured, for the notes column
     * @param recovery how long the cluster took to recover (election, new placement, new
     * leader), or {@code -}
     */
    record Injected(String note, String recovery) {

        /**
         * @param note what was done
         * @return a fault without a recovery time
         */
        static Injected note(String note) {
            return new Injected(note, "-");
        }
    }

    /**
     * One run's setup.
     *
     * @param scenario its name (a, b, pause-alerts, ...), which names its files
     * @param run the run number
     * @param natsUrl the servers' URL list
     * @param replicas stream replicas ({@code VARPULIS_NATS_JETSTREAM_REPLICAS})
     * @param rate lines/s the demo streams
     * @param extra more demo arguments ({@code --kill ...}, {@code --coordinators 2})
     * @param env more environment for the demo and so its nodes
     * ({@code VARPULIS_DEMO_NODE_ENV})
     * @param at the fraction of the log streamed when the fault is injected
     * @param workersLive whether every worker stays alive and connected throughout (a
     * slow disk, a fast clock): then a coordinator declaring one unhealthy ("missed its
     * heartbeats") fails the run, as it moves pipelines off a live worker (issue 25: late
     * is not dead; liveness never from two clocks)
     */
    record Setup(String scenario, int run, String natsUrl, int replicas, int rate, List<String> extra,
            Map<String, String> env, double at, boolean workersLive) {
    }

    /**
     * What the node logs say.
     *
     * @param text broker waits, mended chains, fenced pipelines, workers declared
     * unhealthy, for the notes
     * @param unhealthy times a coordinator declared a worker unhealthy
     */
    private record NodeNotes(String text, long unhealthy) {
    }

    /**
     * Runs the demo once.
     * @param setup what to run
     * @param fault the fault, or {@code null}
     * @return the run's figures
     */
    Row run(Setup setup, Fault fault) throws Exception {
        String scenario = setup.scenario();
        int run = setup.run();
        String name = scenario + "-" + run;
        Path summary = out.resolve(name + "-summary.json");
        Path log = out.resolve(name + "-demo.log");
        Path alerts = out.resolve(name + "-alerts.jsonl");
        Files.deleteIfExists(summary);
        deleteTree(nodeLogs(name)); // an earlier run's node logs would be read as this
                                    // one's
        List<String> command = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar.toString(),
                        "demo", "--nats-url", setup.natsUrl(), "--rate", String.valueOf(setup.rate()), "--summary-json",
                        summary.toString(), "--alerts-out", alerts.toString(), "--input", input.toString(),
                        "--keep-logs", "--batch", String.valueOf(BATCH)));
        command.addAll(setup.extra());
        Files.deleteIfExists(alerts);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        builder.environment().put("VARPULIS_NATS_JETSTREAM_REPLICAS", String.valueOf(setup.replicas()));
        builder.environment().putAll(setup.env());
        System.out.printf("%s: %s%n", name, String.join(" ", command.subList(3, command.size())));
        Process demo = builder.start();
        Thread reaper = new Thread(demo::destroyForcibly);
        Runtime.getRuntime().addShutdownHook(reaper);
        long linesPerMessage = Math.max(1, Math.min(BATCH, setup.rate() / 10));
        AtomicBoolean injecting = new AtomicBoolean();
        CompletableFuture<Injected> injected = fault == null ? CompletableFuture.completedFuture(Injected.note(""))
                : CompletableFuture.supplyAsync(() -> {
                    try {
                        awaitStored(setup.natsUrl(), (long) (lines * setup.at()) / linesPerMessage, demo);
                        if (!demo.isAlive()) {
                            return Injected.note("the demo ended before the fault");
                        }
                        injecting.set(true);
                        return fault.inject(new RunningDemo(log, setup.natsUrl()));
                    }
                    catch (Exception e) {
                        return Injected.note("fault not injected: " + e);
                    }
                    finally {
                        injecting.set(false);
                    }
                });
        boolean ended = demo.waitFor(timeout.toMinutes(), TimeUnit.MINUTES);
        // A fault still going on when the demo wrote its report was not checked by it (a
        // paused worker's writes
        // after its resume): the run does not count.
        boolean outlasted = injecting.get();
        if (!ended) {
            demo.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        Runtime.getRuntime().removeShutdownHook(reaper);
        Injected done = injected.get(timeout.toMinutes(), TimeUnit.MINUTES);
        NodeNotes nodes = nodeNotes(log, name);
        if (!ended) {
            return failed(scenario, run, done.recovery(),
                    "the demo did not end within " + timeout.toMinutes() + " min; " + done.note() + "; see " + log);
        }
        if (!Files.isRegularFile(summary)) {
            return failed(scenario, run, done.recovery(), "exit " + demo.exitValue() + " and no --summary-json "
                    + "written; " + done.note() + "; see " + log + ": " + tail(log));
        }
        if (outlasted) {
            return failed(scenario, run, done.recovery(), "the fault outlasted the stream, so the report did not "
                    + "see its end: stream a longer log (--days) or at a lower --rate; " + done.note());
        }
        JsonNode report = JSON.readTree(summary.toFile());
        Row row = row(scenario, run, demo.exitValue(), report, writtenTwice(alerts), done.recovery(),
                join(done.note(), nodes.text(), "log " + log));
        boolean unhealthyFails = setup.workersLive() && nodes.unhealthy() > 0;
        return row.with(new Row.Watched(-1, -1, nodes.unhealthy(), -1, report.path("seconds_end_to_end").asDouble(-1)),
                !unhealthyFails,
                unhealthyFails ? "a coordinator declared live workers unhealthy " + nodes.unhealthy() + " times" : "",
                "");
    }

    /**
     * @param name the run's name ({@code <scenario>-<run>})
     * @return where its node logs are kept once it ended
     */
    Path nodeLogs(String name) {
        return out.resolve(name + "-nodes");
    }

    private static Row row(String scenario, int run, int exit, JsonNode summary, long writtenTwice, String recovery,
            String notes) {
        long parkedOnEdges = 0;
        long duplicated = 0;
        long alertsStored = 0;
        for (JsonNode edge : summary.path("edges")) {
            parkedOnEdges += edge.path("parked").asLong();
            duplicated += edge.path("duplicated").asLong();
            if (edge.path("edge").asText().endsWith(".alerts")) {
                alertsStored += edge.path("published").asLong() + edge.path("duplicated").asLong();
            }
        }
        // The log's malformed lines are parked by design (SPEC section 7); anything else
        // parked was valid.
        long malformed = summary.path("lines_expected").path("parked").asLong(summary.path("lines_parked").asLong());
        long parkedValid = parkedOnEdges - malformed;
        long alertsExpected = summary.path("alerts_expected").asLong();
        Row.Twice twice = new Row.Twice(writtenTwice, Math.max(0, alertsStored - alertsExpected),
                summary.path("failures_expected").asLong() - summary.path("failures_applied").asLong());
        boolean exact = summary.path("alerts_missing").isEmpty() && summary.path("alerts_unexpected").isEmpty()
                && alertsExpected == summary.path("alerts_got").asLong() && twice.exact();
        boolean passed = exit == 0 && "OK".equals(summary.path("result").asText()) && exact && parkedValid == 0
                && summary.path("failures_expected").asLong() == summary.path("failures_applied").asLong();
        String why = passed ? ""
                : "exit " + exit + ", result " + summary.path("result").asText()
                        + (summary.has("error") ? ", error " + summary.path("error").asText()
                                : ", missing " + firstFew(summary.path("alerts_missing")) + ", unexpected "
                                        + firstFew(summary.path("alerts_unexpected")) + ", problems "
                                        + firstFew(summary.path("problems")))
                        + "; ";
        return new Row(scenario, run, passed, summary.path("failures_expected").asLong(),
                summary.path("failures_applied").asLong(), parkedValid + " (+" + malformed + " malformed lines)",
                duplicated, alertsExpected, summary.path("alerts_got").asLong(), twice, recovery,
                why + "lines " + summary.path("lines_read").asLong() + "; " + notes);
    }

    /**
     * @return the first five elements of a JSON array, and how many there are in all
     */
    private static String firstFew(JsonNode array) {
        List<String> first = new ArrayList<>();
        array.forEach(e -> first.add(e.asText()));
        return array.size() + (array.isEmpty() ? ""
                : " " + first.subList(0, Math.min(5, first.size())) + (array.size() > 5 ? "..." : ""));
    }

    /**
     * @return alert lines beyond the first of their identity ({@code src_ip},
     * {@code window_start}) in the alert file, as the sink wrote them; 0 when there is no
     * file
     */
    static long writtenTwice(Path alerts) throws IOException {
        if (!Files.isRegularFile(alerts)) {
            return 0;
        }
        Set<String> seen = new HashSet<>();
        long twice = 0;
        for (String line : Files.readAllLines(alerts, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                JsonNode alert = JSON.readTree(line);
                twice += seen.add(alert.path("src_ip").asText() + " " + alert.path("window_start").asText()) ? 0 : 1;
            }
        }
        return twice;
    }

    private static Row failed(String scenario, int run, String recovery, String why) {
        return new Row(scenario, run, false, 0, 0, "-", 0, -1, 0, Row.Twice.NONE, recovery, why);
    }

    /**
     * Waits until the demo's input edge holds {@code count} messages (its stream is
     * purged when the demo starts).
     */
    private static void awaitStored(String url, long count, Process demo) throws Exception {
        Options options = new Options.Builder().server(url)
            .connectionTimeout(Duration.ofSeconds(2))
            .maxReconnects(-1)
            .build();
        try (Connection connection = Nats.connect(options)) {
            var jsm = connection.jetStreamManagement();
            long stored = 0;
            while (demo.isAlive()) {
                try {
                    var subjects = jsm
                        .getStreamInfo(VarpulisJetStream.ROUTING_STREAM,
                                StreamInfoOptions.filterSubjects(INPUT.subject()))
                        .getStreamState()
                        .getSubjects();
                    stored = subjects == null ? 0 : subjects.stream().mapToLong(s -> s.getCount()).sum();
                }
                catch (Exception notYet) {
                    // The stream may not exist before the demo creates it.
                }
                if (stored >= count) {
                    return;
                }
                Thread.sleep(100);
            }
        }
    }

    /**
     * What the nodes' logs say about the broker waits and the state (best effort); the
     * node logs, kept by {@code --keep-logs} for this, are then moved next to the demo's
     * ({@code <run>-nodes/}) and the run directory removed.
     */
    private NodeNotes nodeNotes(Path demoLog, String name) {
        try {
            Matcher dir = NODE_LOGS.matcher(Files.readString(demoLog, StandardCharsets.ISO_8859_1));
            if (!dir.find()) {
                return new NodeNotes("", 0);
            }
            Path runDir = Path.of(dir.group(1));
            long outages = 0;
            long tries = 0;
            long mended = 0;
            long fenced = 0;
            long unhealthy = 0;
            try (Stream<Path> logs = Files.list(runDir)) {
                for (Path node : logs.filter(p -> p.toString().endsWith(".log")).toList()) {
                    for (String line : Files.readAllLines(node, StandardCharsets.ISO_8859_1)) {
                        Matcher waited = TRIES.matcher(line);
                        if (waited.find()) {
                            outages++;
                            tries += Long.parseLong(waited.group(1));
                        }
                        mended += line.contains("write chain mended") || line.contains("write chain repaired") ? 1 : 0;
                        fenced += line.contains("stops consuming") ? 1 : 0;
                        unhealthy += line.contains("missed its heartbeats") ? 1 : 0;
                    }
                }
            }
            if (runDir.getFileName().toString().startsWith("varpulis-demo-")) {
                Path kept = Files.createDirectories(out.resolve(name + "-nodes"));
                try (Stream<Path> logs = Files.list(runDir)) {
                    for (Path node : logs.filter(p -> p.toString().endsWith(".log")).toList()) {
                        Files.move(node, kept.resolve(node.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                deleteTree(runDir);
            }
            return new NodeNotes("broker waits " + outages + " (" + tries + " tries), state chains mended " + mended
                    + ", pipelines fenced " + fenced + ", workers declared unhealthy " + unhealthy, unhealthy);
        }
        catch (IOException | RuntimeException e) {
            return new NodeNotes("", 0);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            return String.join(" / ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
        }
        catch (IOException e) {
            return "";
        }
    }

    private static String join(String... parts) {
        return String.join("; ", Stream.of(parts).filter(p -> !p.isBlank()).toList());
    }

}
