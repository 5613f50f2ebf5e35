package io.varpulis.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Year;
import java.time.ZoneOffset;

/**
 * The demo's command line: {@code demo [--input PATH] [--year YYYY] [--alerts-out PATH] [--nats-url URL]
 * [--rate LINES_PER_SECOND] [--no-kill]}.
 *
 * @param input     the sshd log, or {@code null} for the bundled sample (loghub OpenSSH_2k)
 * @param year      the year of the syslog timestamps
 * @param alertsOut the alert file (JSON lines), or {@code null} for one in the run directory
 * @param natsUrl   the JetStream server; when nothing with JetStream is there a local nats-server is started,
 *                  unless the URL was given explicitly (then the run fails and says so)
 * @param natsUrlGiven whether {@code --nats-url} or {@code VARPULIS_NATS_URL} named the server
 * @param rate      lines streamed per second
 * @param kill      whether to SIGKILL the worker hosting {@code detect} half-way and restart it
 */
record DemoOptions(Path input, int year, Path alertsOut, String natsUrl, boolean natsUrlGiven, int rate,
                   boolean kill) {

    /**
     * @param args the arguments after {@code demo}
     * @return the options
     * @throws IllegalArgumentException naming the bad argument and the usage
     */
    static DemoOptions parse(String[] args) {
        Path input = null;
        Path alertsOut = null;
        int year = Year.now(ZoneOffset.UTC).getValue();
        String natsUrl = System.getenv("VARPULIS_NATS_URL");
        boolean natsUrlGiven = natsUrl != null;
        int rate = 200;
        boolean kill = true;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--input" -> input = Path.of(value(args, ++i, arg));
                case "--year" -> year = number(value(args, ++i, arg), arg);
                case "--alerts-out" -> alertsOut = Path.of(value(args, ++i, arg));
                case "--nats-url" -> {
                    natsUrl = value(args, ++i, arg);
                    natsUrlGiven = true;
                }
                case "--rate" -> rate = number(value(args, ++i, arg), arg);
                case "--no-kill" -> kill = false;
                default -> throw new IllegalArgumentException("unknown argument '" + arg + "'. " + USAGE);
            }
        }
        if (rate < 1) {
            throw new IllegalArgumentException("--rate must be at least 1 line per second");
        }
        if (input != null && !Files.isRegularFile(input)) {
            throw new IllegalArgumentException("--input " + input + " is not a readable file");
        }
        if (alertsOut != null && Files.exists(alertsOut)) {
            throw new IllegalArgumentException("--alerts-out " + alertsOut + " exists; the demo does not overwrite "
                    + "files: name a new one or delete it");
        }
        return new DemoOptions(input, year, alertsOut, natsUrl == null ? "nats://127.0.0.1:4222" : natsUrl,
                natsUrlGiven, rate, kill);
    }

    /** The usage line. */
    static final String USAGE = "Usage: java -jar varpulis-cluster.jar demo [--input PATH] [--year YYYY] "
            + "[--alerts-out PATH] [--nats-url URL] [--rate LINES_PER_SECOND] [--no-kill]";

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value. " + USAGE);
        }
        return args[i];
    }

    private static int number(String value, String name) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a whole number, got '" + value + "'. " + USAGE);
        }
    }
}
