package io.varpulis.bench;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.varpulis.test.Processes;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Issue 42: the listener's speed as a user meets it, from outside. Two programs built by
 * {@code scripts/bench.sh} from {@code src/test/resources/bench/listener-outside} against
 * the library it installs into {@code target/bench/m2}: a Spring Boot 4.1 service run as
 * {@code java -jar}, whose {@code @NatsListener} takes each order as a record (the
 * container converts it with the library's default Jackson 2 mapper), writes its line to
 * a file and returns (the container acks); and a plain jnats program doing the same work
 * (a durable pull consumer with the listener's configuration, fetch 500, the same mapper
 * and record, the same line, then the ack). Each run is a fresh JVM with the same flags
 * on a fresh stream holding the orders, stored before the JVM starts; the two take turns
 * to go first, round after round.
 * <p>
 * What is timed, in each JVM by the same code ({@code OrderFile}): from the first order
 * in hand, decoded, to the last order's line written; so each JVM's start-up (and the
 * service's context) is outside the window, and everything that happens meanwhile in the
 * process (its other threads, the JIT compiling, GC) is inside. After each run the
 * harness checks that the server saw every order acked (nothing pending, nothing awaiting
 * an ack, ack floor at the last sequence) and that the file has one line per order.
 */
final class ListenerOutsideRun {

    static final String STREAM = "ORDERS";

    static final String SUBJECT = "orders.created";

    /**
     * The listener's id in the service, hence its durable's name; the plain one's too.
     */
    static final String DURABLE = "orders";

    static final Path PROJECT = Path.of("target", "bench", "listener-outside");

    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private static final Instant PLACED = Instant.parse("2026-12-05T09:00:00Z");

    private final Broker broker;

    private final int orders;

    private final int batch;

    private final List<String> jvmFlags;

    private final Duration quietWait;

    private final Path logs;

    ListenerOutsideRun(Broker broker, int orders, int batch, List<String> jvmFlags, Duration quietWait, Path out) {
        this.broker = broker;
        this.orders = orders;
        this.batch = batch;
        this.jvmFlags = jvmFlags;
        this.quietWait = quietWait;
        this.logs = out.resolve("listener-outside").resolve("runs");
    }

    /**
     * @param rounds rounds; odd rounds start with the listener, even ones with plain
     * jnats
     * @return each round's two runs, listener first
     */
    List<Result[]> run(int rounds) throws Exception {
        Files.createDirectories(logs);
        List<Result[]> results = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            Result[] pair = new Result[2];
            for (int i = 0; i < 2; i++) {
                int client = (round - 1 + i) % 2;
                pair[client] = once(round, client == 0);
                System.out.println("round " + round + " " + pair[client].line());
            }
            System.out.printf(Locale.ROOT, "round %d: listener / plain jnats %.2f%n", round, ratio(pair));
            results.add(pair);
        }
        return results;
    }

    static double ratio(Result[] pair) {
        return pair[0].ordersPerSecond() / pair[1].ordersPerSecond();
    }

    private Result once(int round, boolean listener) throws Exception {
        String name = (listener ? (batch > 0 ? "batch-listener" : "listener") : "plain") + "-" + round;
        Path file = logs.resolve(name + ".csv");
        Path result = logs.resolve(name + ".properties");
        Files.deleteIfExists(file);
        Files.deleteIfExists(result);
        try (Connection admin = Broker.connect(broker.url())) {
            store(admin);
            double foreignBefore = CpuUsage.awaitQuiet(ThroughputRun.QUIET_PERCENT, quietWait);
            CpuUsage before = CpuUsage.now();
            Process process = new ProcessBuilder(command(listener, file, result)).redirectErrorStream(true)
                .redirectOutput(logs.resolve(name + ".log").toFile())
                .start();
            try {
                Properties measured = awaitResult(process, result, name);
                // While the JVM still lives: its CPU is then its own, not other
                // processes'.
                CpuUsage after = CpuUsage.now();
                List<String> problems = new ArrayList<>();
                if (!settled(admin.jetStreamManagement())) {
                    problems.add("the server did not see every order acked within 10 s");
                }
                if (listener) {
                    Processes.stop(process, Duration.ofSeconds(30));
                }
                else if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    problems.add("the plain consumer did not exit");
                }
                long lines;
                try (Stream<String> written = Files.lines(file)) {
                    lines = written.count();
                }
                if (lines != orders) {
                    problems.add(lines + " lines written for " + orders + " orders");
                }
                return Result.of(name.substring(0, name.lastIndexOf('-')), measured, foreignBefore,
                        after.foreignPercentSince(before), problems);
            }
            finally {
                Processes.kill(process);
            }
        }
    }

    private List<String> command(boolean listener, Path file, Path result) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        if (listener) {
            command.addAll(List.of("-jar", PROJECT.resolve("service/target/orders-service.jar").toString(),
                    "--varpulis.nats.url=" + broker.url(), "--orders.file=" + file, "--orders.expected=" + orders,
                    "--orders.result=" + result));
            if (batch > 0) {
                command.addAll(List.of("--orders.batch-size=" + batch,
                        "--varpulis.nats.listeners." + DURABLE + ".batch-size=" + batch));
            }
        }
        else {
            Path plain = PROJECT.resolve("plain/target");
            command.addAll(List.of("-cp", plain.resolve("orders-plain.jar") + ":" + plain.resolve("lib") + "/*",
                    "com.example.orders.plain.PlainConsumer", "--url=" + broker.url(), "--stream=" + STREAM,
                    "--durable=" + DURABLE, "--subject=orders.>", "--file=" + file, "--expected=" + orders,
                    "--result=" + result));
        }
        return command;
    }

    /**
     * A fresh stream holding the orders, every one confirmed by its PubAck: the one a
     * producer's service would have filled.
     */
    private void store(Connection admin) throws Exception {
        JetStreamManagement jsm = admin.jetStreamManagement();
        try {
            jsm.deleteStream(STREAM);
        }
        catch (JetStreamApiException absent) {
            // The first run.
        }
        jsm.addStream(
                StreamConfiguration.builder().name(STREAM).subjects("orders.>").storageType(StorageType.File).build());
        JetStream js = admin.jetStream();
        ArrayDeque<CompletableFuture<PublishAck>> window = new ArrayDeque<>();
        for (int i = 1; i <= orders; i++) {
            if (window.size() == RawJetStreamHopClient.WINDOW) {
                window.poll().get(30, TimeUnit.SECONDS);
            }
            window.add(js.publishAsync(SUBJECT, order(i)));
        }
        for (CompletableFuture<PublishAck> pending : window) {
            pending.get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * @return the i-th order's JSON, about 140 bytes
     */
    static byte[] order(int i) {
        return String
            .format(Locale.ROOT,
                    "{\"orderId\":\"o-%07d\",\"customer\":\"c-%04d\",\"sku\":\"SKU-%05d\",\"quantity\":%d,"
                            + "\"amount\":%d.%02d,\"placedAt\":\"%s\"}",
                    i, i % 997, i * 7 % 5000, 1 + i % 9, 5 + i % 500, i % 100, PLACED.plusMillis(i * 1237L))
            .getBytes(StandardCharsets.UTF_8);
    }

    private Properties awaitResult(Process process, Path result, String name) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!Files.exists(result)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue()
                        + " before it wrote its result; see " + logs.resolve(name + ".log"));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " wrote no result within " + TIMEOUT.toMinutes()
                        + " minutes; see " + logs.resolve(name + ".log"));
            }
            Thread.sleep(10);
        }
        Properties measured = new Properties();
        try (Reader reader = Files.newBufferedReader(result)) {
            measured.load(reader);
        }
        return measured;
    }

    /**
     * @return whether the server saw every order acked: nothing pending, nothing awaiting
     * an ack, the ack floor at the last order
     */
    private boolean settled(JetStreamManagement jsm) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            ConsumerInfo info = jsm.getConsumerInfo(STREAM, DURABLE);
            if (info.getNumPending() == 0 && info.getNumAckPending() == 0
                    && info.getAckFloor().getStreamSequence() == orders) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
    }

    /**
     * One JVM's run.
     *
     * @param client {@code listener}, {@code batch-listener} or {@code plain}
     * @param orders orders timed
     * @param windowNanos from the first order in hand to the last line written, ns
     * @param cpuNanos the process's CPU over that window, all threads, ns
     * @param firstAfterMillis from the JVM's start to the first order in hand, ms
     * @param threads CPU by thread over the window, ns ({@code -Dorders.threads=true}
     * only)
     * @param foreignBefore other processes' share of the CPU in the second before, %
     * @param foreignDuring ... from the JVM's launch to its result, %
     * @param problems what the checks found wrong (none: a clean run)
     */
    record Result(String client, int orders, long windowNanos, long cpuNanos, long firstAfterMillis,
            Map<String, Long> threads, double foreignBefore, double foreignDuring, List<String> problems) {

        static Result of(String client, Properties measured, double foreignBefore, double foreignDuring,
                List<String> problems) {
            Map<String, Long> threads = new TreeMap<>();
            measured.stringPropertyNames()
                .stream()
                .filter(key -> key.startsWith("thread."))
                .forEach(key -> threads.put(key.substring(7), Long.parseLong(measured.getProperty(key))));
            return new Result(client, Integer.parseInt(measured.getProperty("messages")),
                    Long.parseLong(measured.getProperty("window_nanos")),
                    Long.parseLong(measured.getProperty("cpu_nanos")),
                    Long.parseLong(measured.getProperty("uptime_at_first_millis")), threads, foreignBefore,
                    foreignDuring, List.copyOf(problems));
        }

        double ordersPerSecond() {
            return orders * 1e9 / windowNanos;
        }

        double cpuMicrosPerOrder() {
            return cpuNanos / 1e3 / orders;
        }

        String line() {
            return String.format(Locale.ROOT,
                    "%s: %,.0f orders/s (window %.3f s, JVM CPU %.1f us/order, first order %.2f s after the "
                            + "JVM's start; other processes %.0f%% before, %.0f%% during)%s%s",
                    client, ordersPerSecond(), windowNanos / 1e9, cpuMicrosPerOrder(), firstAfterMillis / 1e3,
                    foreignBefore, foreignDuring, problems.isEmpty() ? "" : " PROBLEMS: " + problems,
                    threads.isEmpty() ? "" : "\n  threads (ms): " + threadLine());
        }

        private String threadLine() {
            StringBuilder line = new StringBuilder();
            threads.entrySet()
                .stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .filter(e -> e.getValue() >= 1_000_000)
                .forEach(e -> line.append(e.getKey()).append(' ').append(e.getValue() / 1_000_000).append(", "));
            return line.toString();
        }

    }

    /**
     * @return the rounds as Markdown, with the median of the per-round ratios
     */
    static String table(List<Result[]> rounds) {
        StringBuilder text = new StringBuilder();
        String listener = rounds.get(0)[0].client();
        text.append("| round | first | ")
            .append(listener)
            .append(" orders/s | plain jnats orders/s | ")
            .append(listener)
            .append(" / plain | JVM CPU us/order, ")
            .append(listener)
            .append(" / plain | first order after JVM start, s | other processes' CPU % |\n");
        text.append("|---|---|---:|---:|---:|---|---|---|\n");
        List<Double> ratios = new ArrayList<>();
        List<Double> listenerRates = new ArrayList<>();
        List<Double> plainRates = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < rounds.size(); i++) {
            Result[] pair = rounds.get(i);
            ratios.add(ratio(pair));
            listenerRates.add(pair[0].ordersPerSecond());
            plainRates.add(pair[1].ordersPerSecond());
            text.append(String.format(Locale.ROOT,
                    "| %d | %s | %,.0f | %,.0f | %.2f | %.1f / %.1f | %.2f / %.2f | %.0f / %.0f |\n", i + 1,
                    pair[i % 2].client(), pair[0].ordersPerSecond(), pair[1].ordersPerSecond(), ratio(pair),
                    pair[0].cpuMicrosPerOrder(), pair[1].cpuMicrosPerOrder(), pair[0].firstAfterMillis() / 1e3,
                    pair[1].firstAfterMillis() / 1e3, pair[0].foreignDuring(), pair[1].foreignDuring()));
            for (Result r : pair) {
                for (String problem : r.problems()) {
                    problems.add("round " + (i + 1) + " " + r.client() + ": " + problem);
                }
            }
        }
        text.append(String.format(Locale.ROOT,
                "%n**%s / plain jnats: median of per-round ratios %.2f** (%.2f-%.2f); median rates %,.0f against "
                        + "%,.0f orders/s.%n",
                listener, Report.median(ratios), ratios.stream().min(Double::compare).orElseThrow(),
                ratios.stream().max(Double::compare).orElseThrow(), Report.median(listenerRates),
                Report.median(plainRates)));
        text.append(problems.isEmpty() ? "Every run: every order acked on the server, one line per order.\n"
                : "PROBLEMS: " + problems + "\n");
        return text.toString();
    }

}
