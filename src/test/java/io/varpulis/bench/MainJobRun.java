package io.varpulis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 14's main-job benchmark: the 100 000-line log ({@code scripts/make-log.sh}, the bundled sample over 50
 * consecutive days), read by the main job from the jar ({@code java -jar ... demo}, its own nats-server, a
 * coordinator and two workers as separate JVMs) and by {@code fail2ban-regex LOG sshd} (Debian's fail2ban, the tool
 * operators run for this), one after the other, alternating which goes first, for {@code rounds} rounds; then once
 * more with a worker killed (SIGKILL) half-way and restarted. Each round runs the job twice: with the demo's node
 * JVMs as shipped (C1 only, {@code -XX:TieredStopAtLevel=1}, chosen for start-up) and with C2
 * ({@code VARPULIS_DEMO_NODE_JAVA_OPTS=-XX:TieredStopAtLevel=4}, a JVM's default and a production node's), because
 * on two cores a cold C2 spends much of a short job compiling.
 * <ul>
 * <li>the job's rate is its own end-to-end figure: lines divided by the time from the first publish until every
 * line was processed and the last alert written ({@code lines_per_second_end_to_end} of {@code --summary-json});
 * the JVMs' start-up is not in it;</li>
 * <li>fail2ban-regex's rate is lines divided by the wall time of the whole command, its start-up included (about
 * 0.3 s of its 8 s here);</li>
 * <li>CPU seconds are user plus system time of each command and everything it waited for (bash's {@code time}):
 * for the job that includes starting four JVMs, so it says how much machine the job needs, not its rate.</li>
 * </ul>
 * A round counts only when the job's result is {@code OK} with the exact alert set.
 */
final class MainJobRun {

    /** The nodes as the demo ships them: C1 only. */
    static final String C1 = "C1";
    /** The nodes with C2, a JVM's default. */
    static final String C2 = "C2";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern F2B_LINES = Pattern.compile("Lines: (\\d+) lines, (\\d+) ignored, (\\d+) matched");
    private static final Pattern TIMES = Pattern.compile("^TIMES ([0-9.]+) ([0-9.]+) ([0-9.]+)$", Pattern.MULTILINE);

    private MainJobRun() {
    }

    /** One command's figures. */
    record Timed(double wallSeconds, double cpuSeconds, String output) {
    }

    /**
     * One round.
     *
     * @param f2bLinesPerSecond fail2ban-regex: lines / wall seconds
     * @param f2bCpuSeconds     fail2ban-regex: CPU seconds
     * @param f2bMatched        lines fail2ban-regex matched
     * @param jobLinesPerSecond the job's end-to-end rate
     * @param jobCpuSeconds     the job's CPU seconds, its JVMs' start-up included
     * @param alerts            alerts written / expected
     * @param result            the job's result ({@code OK} or what went wrong)
     * @param kill              what was killed ({@code none} or {@code worker})
     * @param jit               the nodes' compilers: {@code C1} (the demo's default) or {@code C2}
     */
    record Round(double f2bLinesPerSecond, double f2bCpuSeconds, long f2bMatched, double jobLinesPerSecond,
                 double jobCpuSeconds, String alerts, String result, String kill, String jit) {

        double ratio() {
            return jobLinesPerSecond / f2bLinesPerSecond;
        }
    }

    /**
     * The scenario's outcome.
     *
     * @param lines   lines of the log
     * @param rounds  the rounds without a kill, then the one with a worker killed
     * @param pending why it could not run, or {@code null}
     * @param f2b     fail2ban-regex's version line
     */
    record Result(long lines, List<Round> rounds, String pending, String f2b) {

        static Result pending(String why) {
            return new Result(0, List.of(), why, "");
        }
    }

    /**
     * @param jar    the node jar
     * @param days   days of the sample in the log (50: 100 000 lines)
     * @param rounds rounds without a kill
     * @param out    where the log, the summaries and the alert files go
     * @return the figures
     * @throws IOException when a command cannot be started
     */
    static Result run(Path jar, int days, int rounds, Path out) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(out.resolve("mainjob"));
        Timed version = bash("fail2ban-regex --version 2>&1 | head -n 1", dir);
        if (!version.output().toLowerCase(Locale.ROOT).contains("fail2ban")) {
            return Result.pending("fail2ban-regex is not installed (scripts/bench.sh installs Debian's fail2ban)");
        }
        // Absolute: fail2ban-regex runs in the scenario's directory, make-log.sh in the project's.
        Path log = dir.resolve("sshd-" + days + "d.log").toAbsolutePath();
        Timed made = bash("scripts/make-log.sh --days " + days + " " + log, Path.of("."));
        System.out.print(made.output());
        long lines;
        try (var stream = Files.lines(log)) {
            lines = stream.count();
        }
        List<Round> results = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String jit : round % 2 == 1 ? List.of(C1, C2) : List.of(C2, C1)) {
                results.add(round(jar, log, dir, round, round % 2 == 1, "none", jit));
            }
        }
        results.add(round(jar, log, dir, rounds + 1, false, "worker", C1));
        return new Result(lines, results, null, version.output().strip());
    }

    private static Round round(Path jar, Path log, Path dir, int round, boolean jobFirst, String kill, String jit)
            throws IOException, InterruptedException {
        Timed job = null;
        Timed f2b = null;
        for (int i = 0; i < 2; i++) {
            if ((i == 0) == jobFirst) {
                job = job(jar, log, dir, round + "-" + jit, kill, jit);
            } else {
                f2b = bash("fail2ban-regex " + log + " sshd", dir);
            }
        }
        Matcher matched = F2B_LINES.matcher(f2b.output());
        long lines = matched.find() ? Long.parseLong(matched.group(1)) : 0;
        long f2bMatched = lines > 0 ? Long.parseLong(matched.group(3)) : 0;
        JsonNode summary = summary(dir, round + "-" + jit);
        String result = summary == null ? "no summary (see " + dir.resolve("job-" + round + "-" + jit + ".log") + ")"
                : summary.path("result").asText();
        Round r = new Round(lines / f2b.wallSeconds(), f2b.cpuSeconds(), f2bMatched,
                summary == null ? Double.NaN : summary.path("lines_per_second_end_to_end").asDouble(Double.NaN),
                job.cpuSeconds(), summary == null ? "-" : summary.path("alerts_got").asLong() + " / "
                + summary.path("alerts_expected").asLong(), result, kill, jit);
        System.out.printf(Locale.ROOT, "mainjob round %d (kill %s, nodes %s): job %,.0f lines/s (%.1f CPU-s), "
                        + "fail2ban-regex %,.0f lines/s (%.1f CPU-s), ratio %.2f, alerts %s, %s%n", round, kill, jit,
                r.jobLinesPerSecond(), r.jobCpuSeconds(), r.f2bLinesPerSecond(), r.f2bCpuSeconds(), r.ratio(),
                r.alerts(), result);
        return r;
    }

    private static Timed job(Path jar, Path log, Path dir, String run, String kill, String jit)
            throws IOException, InterruptedException {
        Path summary = dir.resolve("summary-" + run + ".json");
        Files.deleteIfExists(summary);
        // The demo never overwrites an alert file: a second run of the scenario in the same tree starts afresh.
        Files.deleteIfExists(dir.resolve("alerts-" + run + ".jsonl"));
        // C1 is the demo's own choice for its nodes; C2 is how a JVM and a production node run by default.
        String command = (jit.equals(C2) ? "VARPULIS_DEMO_NODE_JAVA_OPTS=-XX:TieredStopAtLevel=4 " : "")
                + "java -jar " + jar.toAbsolutePath()
                + " demo --input " + log.toAbsolutePath()
                + " --rate 1000000 --kill " + kill + " --summary-json " + summary.toAbsolutePath()
                + " --alerts-out " + dir.toAbsolutePath().resolve("alerts-" + run + ".jsonl")
                + " > " + dir.toAbsolutePath().resolve("job-" + run + ".log") + " 2>&1";
        return bash(command, Path.of("."));
    }

    private static JsonNode summary(Path dir, String run) throws IOException {
        Path summary = dir.resolve("summary-" + run + ".json");
        return Files.isRegularFile(summary) ? JSON.readTree(summary.toFile()) : null;
    }

    /** Runs a command under bash's {@code time}: wall and CPU (user + system, children included). */
    private static Timed bash(String command, Path workDir) throws IOException, InterruptedException {
        String script = "TIMEFORMAT='TIMES %R %U %S'; { time ( " + command + " ) ; } 2>&1";
        Process process = new ProcessBuilder("bash", "-c", script).directory(workDir.toFile())
                .redirectErrorStream(true).start();
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
