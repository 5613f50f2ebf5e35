package io.varpulis.bench;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The results as Markdown tables, ready for BENCHMARKS.md, each with its machine line and
 * command.
 */
final class Report {

    private final Machine machine;

    private final StringBuilder text = new StringBuilder();

    Report(Machine machine) {
        this.machine = machine;
    }

    /**
     * Two tables: each round's events/s by client, then per client the median events/s,
     * the medians of its per-round ratios to raw jnats, to raw jnats + EventCodec and to
     * the product (each ratio within one round), and its CPU.
     * @param clients the clients' {@link HopClients} names, in the order of each round's
     * results
     * @param rounds per round, the results by client; round r ran client r (modulo their
     * number) first
     * @param load the machine's load averages (1, 5, 15 min) when the rounds started and
     * ended
     */
    void throughput(String substrate, int events, List<String> clients, List<ThroughputRun.Result[]> rounds,
            String command, String load) {
        heading("Routed hop on " + substrate + ": " + events + " events of " + Payloads.SIZE + " bytes", command);
        line("Load average (1, 5, 15 min; 2 cores): " + load + ".");
        line("");
        if (rounds.isEmpty()) {
            return;
        }
        ThroughputRun.Result[] first = rounds.get(0);
        StringBuilder header = new StringBuilder("| round | first |");
        StringBuilder rule = new StringBuilder("|---|---|");
        for (ThroughputRun.Result r : first) {
            header.append(' ').append(r.client()).append(" events/s |");
            rule.append("---:|");
        }
        line(header + " other processes' CPU % (per client) |");
        line(rule + "---|");
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < rounds.size(); i++) {
            ThroughputRun.Result[] round = rounds.get(i);
            StringBuilder row = new StringBuilder("| " + (i + 1) + " | " + round[i % round.length].client() + " |");
            List<String> foreign = new ArrayList<>();
            for (ThroughputRun.Result r : round) {
                row.append(' ').append(rate(r.eventsPerSecond())).append(" |");
                foreign.add(fixed(r.foreignDuring(), 0));
                if (!r.clean()) {
                    problems.add("round " + (i + 1) + " " + r.client() + ": " + r.failed()
                            + " publishes not confirmed, " + r.missing() + " events not applied, " + r.duplicates()
                            + " applied twice, server saw every ack: " + r.settled());
                }
            }
            line(row + " " + String.join(" / ", foreign) + " |");
        }
        line("");
        int raw = clients.indexOf("raw");
        int codec = clients.indexOf("raw-codec");
        int product = clients.indexOf("product");
        line("| client | events/s (median) | / " + (raw < 0 ? "raw" : first[raw].client()) + " | / "
                + (codec < 0 ? "raw + decode" : first[codec].client()) + " | / product | CPU us/event, JVM + server "
                + "(median) | per-round / " + (codec < 0 ? "raw" : first[codec].client()) + " |");
        line("|---|---:|---:|---:|---:|---:|---|");
        for (int c = 0; c < first.length; c++) {
            int client = c;
            List<Double> rates = rounds.stream().map(r -> r[client].eventsPerSecond()).toList();
            List<Double> perRound = rounds.stream()
                .map(r -> r[client].eventsPerSecond() / r[codec < 0 ? Math.max(raw, 0) : codec].eventsPerSecond())
                .toList();
            line("| " + first[c].client() + " | " + rate(median(rates)) + " | " + ratio(rounds, c, raw) + " | "
                    + ratio(rounds, c, codec) + " | " + ratio(rounds, c, product) + " | "
                    + fixed(median(rounds.stream().map(r -> r[client].jvmMicros() + r[client].serverMicros()).toList()),
                            1)
                    + " (" + fixed(median(rounds.stream().map(r -> r[client].jvmMicros()).toList()), 1) + " + "
                    + fixed(median(rounds.stream().map(r -> r[client].serverMicros()).toList()), 1) + ") | "
                    + String.join(", ", perRound.stream().map(v -> fixed(v, 2)).toList()) + " |");
        }
        line("");
        int listener = clients.indexOf("listener");
        int rawListener = clients.indexOf("raw-listener");
        if (listener >= 0 && rawListener >= 0) {
            // Issue 34: the listener's hop against a plain jnats pull consumer doing the
            // same work, round by round.
            List<Double> perRound = rounds.stream()
                .map(r -> r[listener].eventsPerSecond() / r[rawListener].eventsPerSecond())
                .toList();
            line("**" + first[listener].client() + " / " + first[rawListener].client() + "**, per round: "
                    + String.join(", ", perRound.stream().map(v -> fixed(v, 2)).toList()) + "; median **"
                    + fixed(median(perRound), 2) + "**. JVM CPU us/event per round (listener / raw): "
                    + String.join(", ", rounds.stream()
                        .map(r -> fixed(r[listener].jvmMicros(), 1) + " / " + fixed(r[rawListener].jvmMicros(), 1))
                        .toList())
                    + ".");
            line("");
        }
        line(problems.isEmpty() ? "Every run: every publish confirmed, every event applied exactly once"
                + (substrate.equals("jetstream") ? ", and the consumer left with 0 pending and 0 ack pending." : ".")
                : "Problems: " + String.join("; ", problems));
        line("");
        line("Ratios are medians of the per-round ratios (each within one round, the clients taking turns to go "
                + "first).");
        if (codec >= 0) {
            line("\"" + first[codec].client() + "\" is raw jnats whose consumer also decodes each event with the "
                    + "product's own codec before its ack, as the route ingress must (SPEC section 4): the product's "
                    + "ratio to it is what the product costs besides the decode.");
        }
        line("");
    }

    /**
     * @return the median over the rounds of client's events/s over reference's, or "-"
     * without the reference
     */
    private static String ratio(List<ThroughputRun.Result[]> rounds, int client, int reference) {
        if (reference < 0) {
            return "-";
        }
        return fixed(
                median(rounds.stream().map(r -> r[client].eventsPerSecond() / r[reference].eventsPerSecond()).toList()),
                2);
    }

    void latency(List<LatencyRun.Result> results, String command) {
        LatencyRun.Result first = results.get(0);
        heading("Latency at " + first.rate() + " events/s for " + first.seconds() + " s (" + first.events()
                + " events), due publish time to end of apply", command);
        line("| client | substrate | p50 (ms) | p90 (ms) | p99 (ms) | p99.9 (ms) | max (ms) | PubAck p50 (ms) "
                + "| PubAck p99 (ms) | not applied | other processes' CPU % |");
        line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (LatencyRun.Result r : results) {
            Histogram h = r.apply();
            line("| " + r.client() + " | " + r.substrate() + " | " + ms(h.getValueAtPercentile(50)) + " | "
                    + ms(h.getValueAtPercentile(90)) + " | " + ms(h.getValueAtPercentile(99)) + " | "
                    + ms(h.getValueAtPercentile(99.9)) + " | " + ms(h.getMaxValue()) + " | "
                    + ms(r.pubAck().getValueAtPercentile(50)) + " | " + ms(r.pubAck().getValueAtPercentile(99)) + " | "
                    + r.missing() + (r.failed() > 0 ? " (" + r.failed() + " publishes failed)" : "") + " | "
                    + fixed(r.foreign(), 0) + " |");
        }
        line("");
    }

    void memory(List<MemoryRun.Result> results, String command) {
        MemoryRun.Result first = results.get(0);
        heading("Worker node memory at " + first.rate() + " events/s for " + first.seconds() + " s (JetStream)",
                command);
        line("| worker JVM | RSS idle (MiB) | RSS peak under load (MiB) | VmHWM (MiB) | RSS after load + GC (MiB) "
                + "| heap after GC (MiB) | heap committed (MiB) | events applied "
                + "| backlog drained after the last publish (ms) |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (MemoryRun.Result r : results) {
            line("| " + r.label() + (r.flags().isEmpty() ? "" : " `" + r.flags() + "`") + " | " + mib(r.idleKb())
                    + " | " + mib(r.peakKb()) + " | " + mib(r.hwmKb()) + " | " + mib(r.afterKb()) + " | "
                    + fixed(r.heapAfterGc() / 1048576.0, 1) + " | " + fixed(r.heapCommitted() / 1048576.0, 1) + " | "
                    + r.appliedEvents() + " | " + r.drainedMillis() + " |");
        }
        line("");
    }

    void memoryPending(String why, String command) {
        heading("Worker node memory", command);
        line("| worker JVM | RSS under load |");
        line("|---|---|");
        line("| **pending**: " + why + " | - |");
        line("");
    }

    void startup(StartupRun.Result result, String command) {
        heading("Worker start-up: process start to readiness UP", command);
        if (result.pending() != null) {
            line("| start to readiness UP | RSS when ready |");
            line("|---|---|");
            line("| **pending**: " + result.pending() + " | - |");
            line("");
            return;
        }
        line("Worker JVM flags: `" + result.flags() + "`; a coordinator already running; JetStream.");
        line("");
        line("| round | start to readiness UP (s) | RSS when ready (MiB) | other processes' CPU % |");
        line("|---|---:|---:|---:|");
        for (int i = 0; i < result.seconds().size(); i++) {
            line("| " + (i + 1) + " | " + fixed(result.seconds().get(i), 2) + " | " + mib(result.rssKb().get(i)) + " | "
                    + fixed(result.foreign().get(i), 0) + " |");
        }
        line("| **median** | **" + fixed(median(result.seconds()), 2) + "** | | |");
        line("");
    }

    void failover(FailoverRun.Result result, String command) {
        heading("Control-plane failover: two coordinators, two workers, production settings", command);
        if (result.pending() != null) {
            line("| failover | time |");
            line("|---|---|");
            line("| **pending**: " + result.pending() + " | - |");
            line("");
            return;
        }
        line("Settings: `" + result.settings() + "`; nodes started from the jar, JetStream, one server.");
        line("");
        line("| round | leader SIGTERM to new leader (s) | leader SIGKILL to new leader (s) | worker SIGKILL to its "
                + "pipeline running elsewhere (s) | worker and leader SIGKILL to the pipeline running elsewhere (s) |");
        line("|---|---:|---:|---:|---:|");
        for (int i = 0; i < result.crash().size(); i++) {
            line("| " + (i + 1) + " | " + seconds(result.graceful().get(i)) + " | " + seconds(result.crash().get(i))
                    + " | " + seconds(result.worker().get(i)) + " | " + seconds(result.both().get(i)) + " |");
        }
        line("| **median** | **" + seconds(medianMs(result.graceful())) + "** | **" + seconds(medianMs(result.crash()))
                + "** | **" + seconds(medianMs(result.worker())) + "** | **" + seconds(medianMs(result.both()))
                + "** |");
        line("| anchor: singleton failover of a comparable NATS-based engine | 2.6 | 5.9 | | |");
        line("");
    }

    void partitionsPending(String why, String command) {
        heading("Main job with detect in 1 and 2 partitions, two workers", command);
        line("| partitions | lines/s |");
        line("|---|---|");
        line("| **pending**: " + why + " | - |");
        line("");
    }

    void partitions(List<PartitionsRun.Result> results, String command) {
        heading("Main job with detect in 1 and 2 partitions, two workers", command);
        line("| detect partitions | runs passed | median end to end (s) | median lines/s | vs 1 partition |");
        line("|---:|---:|---:|---:|---:|");
        double one = Double.NaN;
        for (int partitions : new int[] { 1, 2 }) {
            List<PartitionsRun.Result> of = results.stream().filter(r -> r.partitions() == partitions).toList();
            List<PartitionsRun.Result> passed = of.stream().filter(PartitionsRun.Result::passed).toList();
            double rate = passed.isEmpty() ? Double.NaN
                    : median(passed.stream().map(PartitionsRun.Result::linesPerSecond).toList());
            if (partitions == 1) {
                one = rate;
            }
            line("| " + partitions + " | " + passed.size() + " of " + of.size() + " | "
                    + (passed.isEmpty() ? "-"
                            : fixed(median(passed.stream().map(PartitionsRun.Result::secondsEndToEnd).toList()), 1))
                    + " | " + (passed.isEmpty() ? "-" : rate(rate)) + " | " + fixed(rate / one, 2) + " |");
        }
        results.stream()
            .filter(r -> !r.passed())
            .forEach(r -> line("- failed run, " + r.partitions() + " partition(s): " + r.note()));
        line("");
    }

    private static long medianMs(List<Long> values) {
        return Math.round(median(values.stream().map(Long::doubleValue).toList()));
    }

    private static String seconds(long ms) {
        return fixed(ms / 1000.0, 1);
    }

    void mainJob(MainJobRun.Result result, String command) {
        String where = result.topology().equals(MainJobRun.R3) ? "3-server cluster, R3 streams and state"
                : "one server, R1 streams and state";
        heading(String.format(Locale.ROOT, "The main job against fail2ban-regex and CrowdSec, %,d-day log, %s",
                result.days(), where), command);
        if (result.pending() != null) {
            line("| round | job lines/s | fail2ban-regex lines/s | CrowdSec lines/s | ratio |");
            line("|---|---:|---:|---:|---:|");
            line("| **pending**: " + result.pending() + " | - | - | - | - |");
            line("");
            return;
        }
        line(result.lines() + " lines (scripts/make-log.sh, " + result.days() + " days of the sample); " + result.f2b()
                + "; "
                + (result.crowdSec() == null ? "CrowdSec not installed"
                        : result.crowdSec() + " (replay mode, sshd parsers, ssh-bf and ssh-slow-bf)")
                + ". The job is fed unpaced; its rate is "
                + "from the first publish to the last alert written (end to end), and over its steady part: from 20 % "
                + "to 80 % of detect's input acknowledged, sampled every 50 ms; and over its first 20 % of lines, "
                + "before the steady part (the JVMs' warm-up). fail2ban-regex's and CrowdSec's "
                + "include their start-up. CPU seconds are "
                + "of each command with its children (the job's include starting four JVMs). CrowdSec's alerts are "
                + "its leaky buckets' overflows (ssh-bf / all four scenarios) and its bans: another rule than ours, "
                + "not compared. Load: the 1-minute load average at the round's start and end.");
        line("");
        line("| round | order | kill | job lines/s | job steady lines/s | job first 20 % lines/s | job CPU-s | "
                + "fail2ban-regex lines/s | "
                + "fail2ban CPU-s | CrowdSec lines/s | CrowdSec CPU-s | job / fail2ban | steady / fail2ban | "
                + "job / CrowdSec | job alerts | CrowdSec alerts (ssh-bf / all), bans | load | result |");
        line("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|");
        List<Double> ratios = new java.util.ArrayList<>();
        List<Double> steadyRatios = new java.util.ArrayList<>();
        List<Double> steadies = new java.util.ArrayList<>();
        List<Double> crowdSecRatios = new java.util.ArrayList<>();
        List<Double> jobs = new java.util.ArrayList<>();
        List<Double> f2bs = new java.util.ArrayList<>();
        List<Double> crowdSecs = new java.util.ArrayList<>();
        for (int i = 0; i < result.rounds().size(); i++) {
            MainJobRun.Round r = result.rounds().get(i);
            double crowdSec = r.crowdSecLinesPerSecond(result.lines());
            if (r.kill().equals("none") && r.counted()) {
                ratios.add(r.ratio());
                jobs.add(r.jobLinesPerSecond());
                if (!Double.isNaN(r.jobSteady())) {
                    steadyRatios.add(r.steadyRatio());
                    steadies.add(r.jobSteady());
                }
                f2bs.add(r.f2bLinesPerSecond());
                if (r.crowdSec() != null) {
                    crowdSecRatios.add(r.jobLinesPerSecond() / crowdSec);
                    crowdSecs.add(crowdSec);
                }
            }
            CrowdSecRun.Replay cs = r.crowdSec();
            line("| " + (i + 1) + " | " + r.order() + " | " + r.kill() + " | " + rate(r.jobLinesPerSecond()) + " | "
                    + (Double.isNaN(r.jobSteady()) ? "-" : rate(r.jobSteady())) + " | "
                    + (Double.isNaN(r.jobFirstPart()) ? "-" : rate(r.jobFirstPart())) + " | "
                    + fixed(r.jobCpuSeconds(), 1) + " | " + rate(r.f2bLinesPerSecond()) + " | "
                    + fixed(r.f2bCpuSeconds(), 1) + " | " + (cs == null ? "-" : rate(crowdSec)) + " | "
                    + (cs == null ? "-" : fixed(cs.timed().cpuSeconds(), 1)) + " | " + fixed(r.ratio(), 2) + " | "
                    + (Double.isNaN(r.jobSteady()) ? "-" : fixed(r.steadyRatio(), 2)) + " | "
                    + (cs == null ? "-" : fixed(r.jobLinesPerSecond() / crowdSec, 1)) + " | " + r.alerts() + " | "
                    + (cs == null ? "-" : cs.bruteForce() + " / " + cs.overflows() + ", " + cs.decisions()) + " | "
                    + r.load() + " | " + r.result() + " |");
        }
        if (!ratios.isEmpty()) {
            line("| **median, no kill** (" + ratios.size() + " counted) | | | **" + rate(median(jobs)) + "** | **"
                    + (steadies.isEmpty() ? "-" : rate(median(steadies))) + "** | | | **" + rate(median(f2bs))
                    + "** | | **" + (crowdSecs.isEmpty() ? "-" : rate(median(crowdSecs))) + "** | | **"
                    + fixed(median(ratios), 2) + "** | **"
                    + (steadyRatios.isEmpty() ? "-" : fixed(median(steadyRatios), 2)) + "** | **"
                    + (crowdSecRatios.isEmpty() ? "-" : fixed(median(crowdSecRatios), 1)) + "** | | | | |");
            line("| **spread, no kill** | | | " + spread(jobs) + " | " + spread(steadies) + " | | | " + spread(f2bs)
                    + " | | " + spread(crowdSecs) + " | | " + spread2(ratios) + " | " + spread2(steadyRatios) + " | "
                    + spread2(crowdSecRatios) + " | | | | |");
        }
        line("");
    }

    void micro(List<MicroRun.Result> results, String command) {
        heading("Micro-benchmarks (JMH): CPU per event, one thread, no network", command);
        if (results.isEmpty()) {
            line("| benchmark | score |");
            line("|---|---|");
            line("| **pending**: JMH is not on the classpath. The Maven profile `bench` of pom.xml adds it, and "
                    + "scripts/bench.sh activates that profile | - |");
            line("");
            return;
        }
        line("| benchmark | mean | 99.9 % error | unit |");
        line("|---|---:|---:|---|");
        for (MicroRun.Result r : results) {
            line("| " + r.benchmark() + " | " + fixed(r.score(), 0) + " | " + fixed(r.error(), 0) + " | " + r.unit()
                    + " |");
        }
        line("");
    }

    /**
     * A section whose table its scenario wrote.
     * @param body Markdown
     */
    void section(String title, String command, String body) {
        heading(title, command);
        line(body);
    }

    String text() {
        return text.toString();
    }

    private void heading(String title, String command) {
        line("### " + title);
        line("");
        line("Machine: " + machine.line() + ".  ");
        line("Command: `" + command + "`");
        line("");
    }

    private void line(String s) {
        text.append(s).append('\n');
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * @return "min-max" of rates, or "-" for none
     */
    private static String spread(List<Double> values) {
        return values.isEmpty() ? "-" : rate(values.stream().min(Double::compare).orElseThrow()) + "-"
                + rate(values.stream().max(Double::compare).orElseThrow());
    }

    /**
     * @return "min-max" of ratios with two decimals, or "-" for none
     */
    private static String spread2(List<Double> values) {
        return values.isEmpty() ? "-" : fixed(values.stream().min(Double::compare).orElseThrow(), 2) + "-"
                + fixed(values.stream().max(Double::compare).orElseThrow(), 2);
    }

    private static String rate(double eventsPerSecond) {
        return Double.isNaN(eventsPerSecond) ? "incomplete" : String.format(Locale.ROOT, "%,.0f", eventsPerSecond);
    }

    private static String cpu(ThroughputRun.Result r) {
        return fixed(r.jvmMicros() + r.serverMicros(), 0) + " (" + fixed(r.jvmMicros(), 0) + " + "
                + fixed(r.serverMicros(), 0) + ")";
    }

    private static String fixed(double value, int decimals) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String ms(long micros) {
        return String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }

    private static String mib(long kb) {
        return kb < 0 ? "-" : String.valueOf(Math.round(kb / 1024.0));
    }

}
