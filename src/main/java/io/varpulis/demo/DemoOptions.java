package io.varpulis.demo;

import io.varpulis.pipeline.PipelineGroupSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Year;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;

/**
 * The demo's command line (see {@link #USAGE}) and the environment it reads.
 *
 * @param input the sshd log, or {@code null} for the bundled sample (loghub OpenSSH_2k)
 * @param year the year of the first RFC 3164 timestamp
 * @param zone the zone of RFC 3164 timestamps (RFC 3339 lines carry their offset)
 * @param alertsOut the alert file (JSON lines), or {@code null} for one in the run
 * directory
 * @param natsUrl the JetStream server or cluster (comma-separated URLs), or {@code null}
 * to start a nats-server of the run's own (the default: isolated)
 * @param rate lines streamed per second
 * @param kill what to SIGKILL mid-stream, and restart
 * @param killAt kill after this many lines were published, or {@code null} for half of
 * them
 * @param summaryJson where to write the JSON summary at the end, or {@code null}
 * @param replicas replicas of the streams and state buckets the run creates
 * @param keepLogs keep the run directory (node logs) after a run that passed; a failed
 * run always keeps it
 * @param detectPartitions how many partitions {@code detect} runs in, by {@code src_ip}
 * (SPEC section 11); 1 for an unpartitioned {@code detect}
 * @param batch at most this many lines per message ({@code SshLogLines}, see
 * {@link io.varpulis.pipeline.EventBatch}); a message also holds no more than a tenth of
 * a second of lines at the rate; 1 streams one {@code SshLogLine} per message
 * @param coordinators how many coordinators the run starts (1 to
 * {@value #MAX_COORDINATORS}); one leads, the others follow and take over (README, "High
 * availability")
 * @param workers how many workers the run starts ({@value #MIN_WORKERS} to
 * {@value #MAX_WORKERS}); 3 runs each pipeline on a worker of its own
 */
record DemoOptions(Path input, int year, ZoneId zone, Path alertsOut, String natsUrl, int rate, Kill kill,
        Integer killAt, Path summaryJson, int replicas, boolean keepLogs, int detectPartitions, int batch,
        int coordinators, int workers) {

    /** Lines per message by default ({@code --batch}). */
    static final int DEFAULT_BATCH = 500;

    /** The most lines per message {@code --batch} takes. */
    static final int MAX_BATCH = 5000;

    /** The most coordinators {@code --coordinators} takes. */
    static final int MAX_COORDINATORS = 3;

    /** The fewest workers {@code --workers} takes: one to kill, one to take over. */
    static final int MIN_WORKERS = 2;

    /** The most workers {@code --workers} takes. */
    static final int MAX_WORKERS = 4;

    /**
     * The environment variable of {@code varpulis.nats.jetstream.replicas}, honoured by
     * the demo and its nodes.
     */
    static final String REPLICAS_VARIABLE = "VARPULIS_NATS_JETSTREAM_REPLICAS";

    /** The environment variable of {@code varpulis.nats.url}: like {@code --nats-url}. */
    static final String URL_VARIABLE = "VARPULIS_NATS_URL";

    /** The usage line. */
    static final String USAGE = "Usage: java -jar varpulis-cluster.jar demo [--input PATH] [--year YYYY] "
            + "[--zone ZONE] [--alerts-out PATH] [--nats-url URL[,URL...]] [--rate LINES_PER_SECOND] "
            + "[--kill none|worker|worker+coordinator] [--kill-at LINE] [--no-kill] [--summary-json PATH] "
            + "[--keep-logs] [--detect-partitions N] [--batch LINES_PER_MESSAGE] [--coordinators N] [--workers N]";

    /**
     * {@code demo --help}: the usage line, then each option in one line (README.md, Quick
     * start, says more).
     */
    static final String HELP = USAGE + """


            Brute-force detection on an sshd log: starts a coordinator and two workers, streams the log, kills a
            worker half-way and restarts it, then checks every line, failure and alert. Exit status 0: all accounted
            for; 1: not (or most lines unparsable); 2: bad arguments or an environment that cannot run it.

              --input PATH              the sshd log (default: the bundled loghub OpenSSH_2k sample); RFC 3164 or
                                        RFC 3339 headers, tags sshd, sshd-session, sshd-auth, sshd(pam_unix)
              --year YYYY               year of the first RFC 3164 line (default: this year, UTC)
              --zone ZONE               zone of RFC 3164 lines: +02:00, Europe/Paris (default: UTC)
              --alerts-out PATH         a new file for the alerts, JSON lines (default: in the run directory)
              --nats-url URL[,URL...]   a shared JetStream server or cluster (default: a nats-server -js of the
                                        run's own, on a free loopback port); also VARPULIS_NATS_URL
              --rate LINES_PER_SECOND   the feeder's pace (default: 200)
              --batch LINES_PER_MESSAGE lines per message, at most a tenth of a second of them (default: %d,
                                        at most %d; 1: one SshLogLine a message)
              --kill none|worker|worker+coordinator
                                        what to SIGKILL and restart mid-stream (default: worker); --no-kill = none
              --kill-at LINE            kill after this many lines (default: half of them)
              --summary-json PATH       write the report as JSON
              --keep-logs               keep the run directory (node logs) after a run that passed
              --detect-partitions N     run detect in N partitions by src_ip (default: 1, at most %d)
              --coordinators N          start N coordinators, one leading, the others following (default: 1,
                                        at most %d)
              --workers N               start N workers (default: 2, from %d to %d; 3: a pipeline on each)

            Environment: VARPULIS_NATS_SERVER names the nats-server binary to start; VARPULIS_NATS_JETSTREAM_REPLICAS
            the replicas of the streams and state the run creates on a shared cluster (3 on three servers);
            VARPULIS_DEMO_NODE_JAVA_OPTS adds JVM flags to the nodes (default: C1 only, for start-up, and C2
            too from 500 000 input lines on);
            VARPULIS_DEMO_RELAUNCH=false keeps the demo in the JVM started (else it runs again with C1 only);
            VARPULIS_DEMO_NODE_ENV adds environment variables to the nodes (NAME=VALUE ..., {node} replaced by the
            node's name: the fault suite runs them under libfaketime with it).""".formatted(DEFAULT_BATCH, MAX_BATCH,
            PipelineGroupSpec.DEFAULT_MAX_PARTITIONS, MAX_COORDINATORS, MIN_WORKERS, MAX_WORKERS);

    /** What the run kills mid-stream (SIGKILL), then starts again. */
    enum Kill {

        /** Nothing. */
        NONE("none"),
        /**
         * The worker hosting {@code detect} (partition 0 of a partitioned {@code detect};
         * the default).
         */
        WORKER("worker"),
        /** The worker hosting {@code detect} and the coordinator, together. */
        WORKER_AND_COORDINATOR("worker+coordinator");

        private final String text;

        Kill(String text) {
            this.text = text;
        }

        /**
         * @return the command-line spelling
         */
        String text() {
            return text;
        }

        static Kill parse(String value) {
            for (Kill kill : values()) {
                if (kill.text.equals(value)) {
                    return kill;
                }
            }
            throw new IllegalArgumentException(
                    "--kill must be none, worker or worker+coordinator, got '" + value + "'. " + USAGE);
        }

    }

    /**
     * @param args the arguments after {@code demo}
     * @param env the environment ({@value #URL_VARIABLE}, {@value #REPLICAS_VARIABLE})
     * @return the options
     * @throws IllegalArgumentException naming the bad argument or variable, and the usage
     */
    static DemoOptions parse(String[] args, Map<String, String> env) {
        Path input = null;
        Path alertsOut = null;
        Path summaryJson = null;
        int year = Year.now(ZoneOffset.UTC).getValue();
        ZoneId zone = ZoneOffset.UTC;
        String natsUrl = env.get(URL_VARIABLE);
        int rate = 200;
        Kill kill = Kill.WORKER;
        Integer killAt = null;
        boolean keepLogs = false;
        int detectPartitions = 1;
        int batch = DEFAULT_BATCH;
        int coordinators = 1;
        int workers = MIN_WORKERS;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--input" -> input = Path.of(value(args, ++i, arg));
                case "--year" -> year = number(value(args, ++i, arg), arg);
                case "--zone" -> zone = zone(value(args, ++i, arg));
                case "--alerts-out" -> alertsOut = Path.of(value(args, ++i, arg));
                case "--nats-url" -> natsUrl = value(args, ++i, arg);
                case "--rate" -> rate = number(value(args, ++i, arg), arg);
                case "--kill" -> kill = Kill.parse(value(args, ++i, arg));
                case "--kill-at" -> killAt = number(value(args, ++i, arg), arg);
                case "--no-kill" -> kill = Kill.NONE;
                case "--summary-json" -> summaryJson = Path.of(value(args, ++i, arg));
                case "--keep-logs" -> keepLogs = true;
                case "--detect-partitions" -> detectPartitions = number(value(args, ++i, arg), arg);
                case "--batch" -> batch = number(value(args, ++i, arg), arg);
                case "--coordinators" -> coordinators = number(value(args, ++i, arg), arg);
                case "--workers" -> workers = number(value(args, ++i, arg), arg);
                default -> throw new IllegalArgumentException("unknown argument '" + arg + "'. " + USAGE);
            }
        }
        if (rate < 1) {
            throw new IllegalArgumentException("--rate must be at least 1 line per second");
        }
        if (detectPartitions < 1 || detectPartitions > PipelineGroupSpec.DEFAULT_MAX_PARTITIONS) {
            throw new IllegalArgumentException("--detect-partitions must be between 1 and "
                    + PipelineGroupSpec.DEFAULT_MAX_PARTITIONS + ", got " + detectPartitions);
        }
        if (batch < 1 || batch > MAX_BATCH) {
            throw new IllegalArgumentException("--batch must be between 1 (one line per message) and " + MAX_BATCH
                    + " lines per message, got " + batch);
        }
        if (coordinators < 1 || coordinators > MAX_COORDINATORS) {
            throw new IllegalArgumentException(
                    "--coordinators must be between 1 and " + MAX_COORDINATORS + ", got " + coordinators);
        }
        if (workers < MIN_WORKERS || workers > MAX_WORKERS) {
            throw new IllegalArgumentException(
                    "--workers must be between " + MIN_WORKERS + " and " + MAX_WORKERS + ", got " + workers);
        }
        if (killAt != null && killAt < 0) {
            throw new IllegalArgumentException("--kill-at must be a line count (0 or more), got " + killAt);
        }
        if (input != null && !Files.isRegularFile(input)) {
            throw new IllegalArgumentException("--input " + input + " is not a readable file");
        }
        if (alertsOut != null && Files.exists(alertsOut)) {
            throw new IllegalArgumentException("--alerts-out " + alertsOut + " exists; the demo does not overwrite "
                    + "files: name a new one or delete it");
        }
        Path summaryDir = summaryJson == null ? null : summaryJson.toAbsolutePath().getParent();
        if (summaryDir != null && !Files.isDirectory(summaryDir)) {
            throw new IllegalArgumentException(
                    "--summary-json " + summaryJson + ": directory " + summaryDir + " does not exist");
        }
        if (natsUrl != null && natsUrl.isBlank()) {
            throw new IllegalArgumentException("--nats-url (or " + URL_VARIABLE + ") is empty: name a server, "
                    + "or leave it out to let the demo start its own");
        }
        int replicas = replicas(env.get(REPLICAS_VARIABLE));
        if (replicas > 1 && natsUrl == null) {
            throw new IllegalArgumentException(REPLICAS_VARIABLE + "=" + replicas + " needs a JetStream cluster, "
                    + "and the demo's own nats-server is a single one: point --nats-url at the cluster "
                    + "(comma-separated URLs) or set " + REPLICAS_VARIABLE + "=1");
        }
        return new DemoOptions(input, year, zone, alertsOut, natsUrl, rate, kill, killAt, summaryJson, replicas,
                keepLogs, detectPartitions, batch, coordinators, workers);
    }

    private static int replicas(String value) {
        if (value == null || value.isBlank()) {
            return 1;
        }
        try {
            int replicas = Integer.parseInt(value.trim());
            if (replicas >= 1 && replicas <= 5) {
                return replicas;
            }
        }
        catch (NumberFormatException e) {
            // Reported below with the accepted range.
        }
        throw new IllegalArgumentException(REPLICAS_VARIABLE + "='" + value + "' is not a replica count: JetStream "
                + "takes 1 to 5 (1 on a single server, 3 on a production cluster)");
    }

    private static ZoneId zone(String value) {
        try {
            return ZoneId.of(value);
        }
        catch (DateTimeException e) {
            throw new IllegalArgumentException("--zone '" + value + "' is not a time zone: use UTC, an offset such "
                    + "as +02:00, or a region such as Europe/Paris. " + USAGE, e);
        }
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value. " + USAGE);
        }
        return args[i];
    }

    private static int number(String value, String name) {
        try {
            return Integer.parseInt(value);
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a whole number, got '" + value + "'. " + USAGE);
        }
    }
}
