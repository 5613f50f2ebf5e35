package io.varpulis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.test.NatsClusterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The main job against the tools operators run for it (issues 14, 27 and 34, SPEC section
 * 16): a log of {@code scripts/make-log.sh} (the bundled sample over consecutive days, 2
 * 000 lines and 16 alerts a day: 50 days for the 100 000-line log, 500 for the 1 000
 * 000-line one) read by the main job from the jar ({@code java -jar ... demo}: a
 * coordinator and two workers as separate JVMs, the nodes as the demo ships them), by
 * {@code fail2ban-regex LOG sshd} (Debian's fail2ban 1.0.2) and by CrowdSec in replay
 * mode ({@link CrowdSecRun}, Debian's 1.4.6), one after the other in each round, the
 * order rotating so that each goes first, second and third equally often; then, unless
 * told not to, once more with the worker hosting {@code detect} killed (SIGKILL) half-way
 * and restarted (the job and fail2ban-regex only).
 * <p>
 * Topology {@value #R1}: the demo's own nats-server, streams and state with one replica.
 * Topology {@value #R3}: a 3-server cluster the harness starts (as the fault suite does),
 * the demo pointed at it with {@code VARPULIS_NATS_JETSTREAM_REPLICAS=3}, so the routing
 * stream and every state bucket are R3 and every write a quorum write; the demo purges
 * its group's consumers, state and routed events before each run.
 * <ul>
 * <li>the job is fed unpaced ({@code --rate 1000000}: the feeder publishes as fast as the
 * stream confirms, the pipelines set the pace); its rate is its own end-to-end figure,
 * lines divided by the time from the first publish until every line was processed and the
 * last alert written ({@code lines_per_second_end_to_end} of {@code --summary-json}), the
 * JVMs' start-up not in it; and over its steady part ({@code lines_per_second_steady}:
 * from 20 % to 80 % of {@code detect}'s input acknowledged, sampled every 50 ms by the
 * demo, see its {@code SteadyWatch}), which leaves out the JVMs' warm-up at the start and
 * the alert tail;</li>
 * <li>fail2ban-regex's and CrowdSec's rates are lines divided by the wall time of the
 * whole command, start-up included (0.3 s and 2 s);</li>
 * <li>CPU seconds are user plus system time of each command and everything it waited for
 * (bash's {@code time}): for the job that includes starting four JVMs (and not the R3
 * cluster's servers), so it says how much machine the job needs, not its rate;</li>
 * <li>the load is the 1-minute load average ({@code /proc/loadavg}) at the start and the
 * end of the round.</li>
 * </ul>
 * A round counts only when the job's result is {@code OK}: every line, failure and alert
 * accounted for, the exact alert set.
 */
final class MainJobRun {

    /** One server, R1 streams and state. */
    static final String R1 = "r1";

    /** Three servers, R3 streams and state. */
    static final String R3 = "r3";
    static final List<String> TOPOLOGIES = List.of(R1, R3);

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Pattern F2B_LINES = Pattern.compile("Lines: (\\d+) lines, (\\d+) ignored, (\\d+) matched");

    private static final Pattern TIMES = Pattern.compile("^TIMES ([0-9.]+) ([0-9.]+) ([0-9.]+)$", Pattern.MULTILINE);

    private static final List<String> CONTENDERS = List.of("job", "fail2ban", "crowdsec");

    private MainJobRun() {
    }

    /** One command's figures. */
    record Timed(double wallSeconds, double cpuSeconds, String output) {
    }

    /**
     * One round.
     *
     * @param order who ran first, second, third
     * @param kill what was killed ({@code none} or {@code worker})
     * @param jobLinesPerSecond the job's end-to-end rate
     * @param jobSteady the job's rate over its steady part, NaN when the demo could not
     * cut one
     * @param jobFirstPart the job's rate before its steady part: the first 20 % of the
     * lines over the seconds from the first publish until 20 % of detect's input was
     * acknowledged (the JVMs' warm-up), NaN when the demo could not cut one
     * @param jobCpuSeconds the job's CPU seconds, its JVMs' start-up included
     * @param alerts alerts written / expected
     * @param result the job's result ({@code OK} or what went wrong)
     * @param f2bLinesPerSecond fail2ban-regex: lines / wall seconds
     * @param f2bCpuSeconds fail2ban-regex: CPU seconds
     * @param crowdSec CrowdSec's replay, or {@code null} in the kill round
     * @param load the 1-minute load average at the round's start and end
     */
    record Round(String order, String kill, double jobLinesPerSecond, double jobSteady, double jobFirstPart,
            double jobCpuSeconds, String alerts, String result, double f2bLinesPerSecond, double f2bCpuSeconds,
            CrowdSecRun.Replay crowdSec, String load) {

        double ratio() {
            return jobLinesPerSecond / f2bLinesPerSecond;
        }

        double steadyRatio() {
            return jobSteady / f2bLinesPerSecond;
        }

        double crowdSecLinesPerSecond(long lines) {
            return crowdSec == null ? Double.NaN : lines / crowdSec.timed().wallSeconds();
        }

        boolean counted() {
            return result.equals("OK");
        }
    }

    /**
     * The scenario's outcome.
     *
     * @param lines lines of the log
     * @param days days of the sample in it
     * @param topology {@value #R1} or {@value #R3}
     * @param rounds the rounds without a kill, then the one with a worker killed
     * @param pending why it could not run, or {@code null}
     * @param f2b fail2ban-regex's version line
     * @param crowdSec CrowdSec's version, or {@code null} when it is not installed (its
     * columns are then empty)
     */
    record Result(long lines, int days, String topology, List<Round> rounds, String pending, String f2b,
            String crowdSec) {

        static Result pending(String topology, int days, String why) {
            return new Result(0, days, topology, List.of(), why, "", null);
        }
    }

    /**
     * @param jar the node jar
     * @param topology {@value #R1} or {@value #R3}
     * @param days days of the sample in the log (50: 100 000 lines; 500: 1 000 000)
     * @param rounds rounds without a kill
     * @param killRound whether a round with the worker hosting {@code detect} killed
     * follows them
     * @param crowdSecRounds how many of the rounds, from the first, run CrowdSec too (it
     * takes 3 to 15 minutes for 1 000 000 lines on 2 cores; fail2ban-regex, the targets'
     * reference, runs in every round)
     * @param out where the log, the summaries and the alert files go
     * @return the figures
     * @throws IOException when a command cannot be started
     */
    static Result run(Path jar, String topology, int days, int rounds, boolean killRound, int crowdSecRounds, Path out)
            throws Exception {
        Path dir = Files.createDirectories(out.resolve("mainjob"));
        Timed version = bash("fail2ban-regex --version 2>&1 | head -n 1", dir);
        if (!version.output().toLowerCase(Locale.ROOT).contains("fail2ban")) {
            return Result.pending(topology, days,
                    "fail2ban-regex is not installed (scripts/bench.sh installs Debian's " + "fail2ban)");
        }
        String crowdSec = CrowdSecRun.version(dir);
        // Absolute: fail2ban-regex runs in the scenario's directory, make-log.sh in the
        // project's.
        Path log = dir.resolve("sshd-" + days + "d.log").toAbsolutePath();
        Timed made = bash("scripts/make-log.sh --days " + days + " " + log, Path.of("."));
        System.out.print(made.output());
        long lines;
        try (var stream = Files.lines(log)) {
            lines = stream.count();
        }
        NatsClusterExtension cluster = topology.equals(R3) ? NatsClusterExtension.ofThree() : null;
        try {
            String natsUrl = null;
            if (cluster != null) {
                cluster.start();
                natsUrl = cluster.url();
            }
            List<Round> results = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                List<String> order = new ArrayList<>(CONTENDERS);
                Collections.rotate(order, -((round - 1) % CONTENDERS.size()));
                if (crowdSec == null || round > crowdSecRounds) {
                    order.remove("crowdsec");
                }
                results.add(round(jar, natsUrl, log, lines, dir, topology + "-" + days + "d-" + round, order, "none"));
            }
            if (killRound) {
                results.add(round(jar, natsUrl, log, lines, dir, topology + "-" + days + "d-kill",
                        List.of("fail2ban", "job"), "worker"));
            }
            return new Result(lines, days, topology, results, null, version.output().strip(), crowdSec);
        }
        finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    private static Round round(Path jar, String natsUrl, Path log, long lines, Path dir, String run, List<String> order,
            String kill) throws IOException, InterruptedException {
        String loadBefore = load();
        Timed job = null;
        Timed f2b = null;
        CrowdSecRun.Replay crowdSec = null;
        for (String contender : order) {
            switch (contender) {
                case "job" -> job = job(jar, natsUrl, log, dir, run, kill);
                case "fail2ban" -> f2b = bash("fail2ban-regex " + log + " sshd", dir);
                default -> crowdSec = CrowdSecRun.run(log, dir, run);
            }
        }
        Matcher matched = F2B_LINES.matcher(f2b.output());
        long f2bLines = matched.find() ? Long.parseLong(matched.group(1)) : 0;
        JsonNode summary = summary(dir, run);
        String result = summary == null ? "no summary (see " + dir.resolve("job-" + run + ".log") + ")"
                : summary.path("result").asText();
        Round r = new Round(String.join(", ", order), kill,
                summary == null ? Double.NaN : summary.path("lines_per_second_end_to_end").asDouble(Double.NaN),
                summary == null ? Double.NaN : summary.path("lines_per_second_steady").asDouble(Double.NaN),
                summary == null ? Double.NaN : 0.2 * lines / summary.path("steady_from_seconds").asDouble(Double.NaN),
                job.cpuSeconds(),
                summary == null ? "-"
                        : summary.path("alerts_got").asLong() + " / " + summary.path("alerts_expected").asLong(),
                result, f2bLines / f2b.wallSeconds(), f2b.cpuSeconds(), crowdSec, loadBefore + "-" + load());
        System.out.printf(Locale.ROOT,
                "mainjob %s (kill %s, %s): job %,.0f lines/s (steady %,.0f; %.1f CPU-s), "
                        + "fail2ban-regex %,.0f lines/s (%.1f CPU-s), CrowdSec %,.0f lines/s, ratio %.2f, alerts %s, "
                        + "%s, load %s%n",
                run, kill, r.order(), r.jobLinesPerSecond(), r.jobSteady(), r.jobCpuSeconds(), r.f2bLinesPerSecond(),
                r.f2bCpuSeconds(), r.crowdSecLinesPerSecond(lines), r.ratio(), r.alerts(), result, r.load());
        return r;
    }

    private static Timed job(Path jar, String natsUrl, Path log, Path dir, String run, String kill)
            throws IOException, InterruptedException {
        Path summary = dir.resolve("summary-" + run + ".json");
        Files.deleteIfExists(summary);
        // The demo never overwrites an alert file: a second run of the scenario in the
        // same tree starts afresh.
        Files.deleteIfExists(dir.resolve("alerts-" + run + ".jsonl"));
        String command = (natsUrl == null ? "" : "VARPULIS_NATS_JETSTREAM_REPLICAS=3 ") + "java -jar "
                + jar.toAbsolutePath() + " demo" + (natsUrl == null ? "" : " --nats-url " + natsUrl) + " --input "
                + log.toAbsolutePath() + " --rate 1000000 --kill " + kill + " --summary-json "
                + summary.toAbsolutePath() + " --alerts-out " + dir.toAbsolutePath().resolve("alerts-" + run + ".jsonl")
                + " > " + dir.toAbsolutePath().resolve("job-" + run + ".log") + " 2>&1";
        return bash(command, Path.of("."));
    }

    /**
     * @return the 1-minute load average, as {@code uptime} prints it
     */
    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    }

    private static JsonNode summary(Path dir, String run) throws IOException {
        Path summary = dir.resolve("summary-" + run + ".json");
        return Files.isRegularFile(summary) ? JSON.readTree(summary.toFile()) : null;
    }

    /**
     * Runs a command under bash's {@code time}: wall and CPU (user + system, children
     * included).
     */
    static Timed bash(String command, Path workDir) throws IOException, InterruptedException {
        String script = "TIMEFORMAT='TIMES %R %U %S'; { time ( " + command + " ) ; } 2>&1";
        Process process = new ProcessBuilder("bash", "-c", script).directory(workDir.toFile())
            .redirectErrorStream(true)
            .start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(30, TimeUnit.MINUTES)) {
            process.destroyForcibly();
        }
        Matcher times = TIMES.matcher(output);
        double wall = Double.NaN;
        double cpu = Double.NaN;
        while (times.find()) {
            wall = Double.parseDouble(times.group(1));
            cpu = Double.parseDouble(times.group(2)) + Double.parseDouble(times.group(3));
        }
        return new Timed(wall, cpu, TIMES.matcher(output).replaceAll(""));
    }

}
