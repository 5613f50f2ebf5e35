package io.varpulis.bench;

import io.varpulis.nats.Substrate;
import io.varpulis.pipeline.RouteEdge;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Issue 7's benchmarks, end to end against a real nats-server that this harness starts on
 * a free 127.0.0.1 port with a JetStream file store in a temp dir, and deletes
 * afterwards. Run it with {@code scripts/bench.sh [--name=value...]} (see
 * {@link BenchOptions}); it prints Markdown tables for BENCHMARKS.md and writes them to
 * {@code target/bench/results.md}.
 * <ol>
 * <li>warm-up: each client five times, unreported;</li>
 * <li>throughput: the routed hop on JetStream, then on core, product and raw jnats in the
 * same run (on JetStream also raw jnats decoding with the product's codec, the product
 * observed at 10 % and 100 % sampling and a service's {@code @NatsListener}:
 * {@link HopClients}), taking turns to go first, for {@code --rounds} rounds;</li>
 * <li>latency: product and raw at the paced rate;</li>
 * <li>memory: a worker node started from the jar, under the paced load;</li>
 * <li>startup: a worker node started from the jar, to readiness UP;</li>
 * <li>failover: coordinators and workers started from the jar, the leader and a worker
 * stopped or killed (issue 12);</li>
 * <li>mainjob: the main job from the jar, fail2ban-regex and CrowdSec on the 100 000-line
 * log, side by side, on one server or a 3-server R3 cluster ({@code --topology}; issues
 * 14 and 27);</li>
 * <li>steady: the same on the 1 000 000-line log, on one server and then on three,
 * without a kill round: the job's steady state, not its JVMs' warm-up (issue 34);</li>
 * <li>partitions: the main job from the jar with {@code detect} in 1 and 2 partitions
 * (issue 16);</li>
 * <li>micro: the JMH benchmarks of {@code src/jmh/java} (with the Maven profile
 * {@code bench});</li>
 * <li>listener-outside: a Spring Boot service's {@code @NatsListener} against a plain
 * jnats consumer doing the same work, each a fresh JVM on stored orders (issue 42).</li>
 * </ol>
 * Not a test: the class names end in neither Test nor Tests, so {@code ./mvnw verify}
 * does not run it.
 */
public final class BenchMain {

    private static final Path OUT = Path.of("target", "bench");

    private static final int WARM_UP_RUNS = 5;

    private final BenchOptions options;

    private final Broker broker;

    private int edges;

    private BenchMain(BenchOptions options, Broker broker) {
        this.options = options;
        this.broker = broker;
    }

    public static void main(String[] args) throws Exception {
        Logging.warnAndAbove();
        BenchOptions options = BenchOptions.parse(args);
        try (Broker broker = new Broker()) {
            // Interrupted (Ctrl-C): still stop the server and delete its store.
            Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "bench-broker-close"));
            Machine machine = Machine.describe(broker);
            System.out.println("machine: " + machine.line());
            Report report = new BenchMain(options, broker).run(machine);
            Files.createDirectories(OUT);
            Files.writeString(OUT.resolve("results.md"), report.text());
            System.out.println();
            System.out.println(report.text());
            System.out.println("(also written to " + OUT.resolve("results.md") + ")");
        }
        System.exit(0);
    }

    private Report run(Machine machine) throws Exception {
        Report report = new Report(machine);
        if (options.runs("throughput") || options.runs("latency")) {
            for (Substrate substrate : options.substrates()) {
                warmUp(substrate);
            }
        }
        if (options.runs("throughput")) {
            for (Substrate substrate : options.substrates()) {
                throughput(substrate, report);
            }
        }
        if (options.runs("latency")) {
            latency(report);
        }
        if (options.runs("memory")) {
            memory(report);
        }
        if (options.runs("startup")) {
            startup(report);
        }
        if (options.runs("failover")) {
            failover(report);
        }
        if (options.runs("mainjob")) {
            mainJob(report);
        }
        if (options.runs("steady")) {
            steady(report);
        }
        if (options.runs("partitions")) {
            partitions(report);
        }
        if (options.runs("micro")) {
            report.micro(MicroRun.run(OUT), command("micro"));
        }
        if (options.runs("listener-outside")) {
            listenerOutside(report);
        }
        return report;
    }

    /**
     * Runs each client {@value #WARM_UP_RUNS} times, unreported: on 2 cores the JIT needs
     * several hundred thousand events before the product's path (Jackson, the ingress,
     * the futures) is compiled, and the first runs are up to three times slower than the
     * later ones.
     */
    private void warmUp(Substrate substrate) throws Exception {
        byte[][] warmup = Payloads.events(options.warmup());
        for (int run = 1; run <= WARM_UP_RUNS; run++) {
            for (String client : clients(substrate)) {
                progress("warm-up " + run + " " + substrate.name().toLowerCase(),
                        once(client(substrate, client), warmup, null));
            }
        }
    }

    /**
     * Each round runs every client of the substrate once, the first of round r being
     * client r (modulo their number), so that each goes first as often as the others: on
     * JetStream the product, the raw jnats baseline, raw jnats decoding each event with
     * the product's codec (the decode's own cost, measured in the same round), the
     * product observed (issue 23) and a service's listener (issue 22); see
     * {@link HopClients}.
     */
    private void throughput(Substrate substrate, Report report) throws Exception {
        String name = substrate.name().toLowerCase();
        byte[][] payloads = Payloads.events(options.events());
        List<String> names = clients(substrate);
        int clients = names.size();
        if (clients == 0) {
            // --hop-clients named none of this substrate's (listener and raw-listener are
            // JetStream's): no table.
            return;
        }
        String loadBefore = Machine.load();
        List<ThroughputRun.Result[]> rounds = new ArrayList<>();
        for (int round = 0; round < options.rounds(); round++) {
            ThroughputRun.Result[] results = new ThroughputRun.Result[clients];
            for (int i = 0; i < clients; i++) {
                int client = (round + i) % clients;
                results[client] = once(client(substrate, names.get(client)), payloads,
                        Duration.ofSeconds(options.quietWait()));
                progress("round " + (round + 1) + " " + name, results[client]);
            }
            rounds.add(results);
        }
        report.throughput(name, options.events(), names, rounds,
                command("throughput") + " --events=" + options.events() + " --rounds=" + options.rounds()
                        + (options.rawDecodes() ? " --baseline=raw-decode" : "") + hopOptions(),
                loadBefore + " at the start, " + Machine.load() + " at the end");
    }

    /**
     * @return the hop options that differ from their defaults, as given
     */
    private String hopOptions() {
        return (options.hopClients().equals(HopClients.ALL) ? ""
                : " --hop-clients=" + String.join(",", options.hopClients()))
                + (options.quietWait() == 60 ? "" : " --quiet-wait=" + options.quietWait())
                + (options.storedHop() ? " --hop-mode=stored" : "");
    }

    private ThroughputRun.Result once(HopClient client, byte[][] payloads, Duration quietWait) throws Exception {
        RouteEdge edge = nextEdge();
        try {
            return ThroughputRun.run(broker, client, edge, payloads, quietWait,
                    options.storedHop() && client.substrate() == Substrate.JETSTREAM);
        }
        finally {
            client.close();
            cleanUp(client, edge);
        }
    }

    private void latency(Report report) throws Exception {
        List<LatencyRun.Result> results = new ArrayList<>();
        for (int run = 0; run < options.substrates().size() * 2; run++) {
            HopClient client = client(options.substrates().get(run / 2), run % 2 == 0 ? "product" : "raw");
            RouteEdge edge = nextEdge();
            try {
                LatencyRun.Result result = LatencyRun.run(client, edge, options.rate(), options.seconds(),
                        Duration.ofSeconds(options.quietWait()));
                System.out.printf("latency %s %s: p99 %.2f ms%n", result.client(), result.substrate(),
                        result.apply().getValueAtPercentile(99) / 1000.0);
                results.add(result);
            }
            finally {
                client.close();
                cleanUp(client, edge);
            }
        }
        report.latency(results,
                command("latency") + " --rate=" + options.rate() + " --seconds=" + options.seconds()
                        + (options.rawDecodes() ? " --baseline=raw-decode" : "")
                        + (options.quietWait() == 60 ? "" : " --quiet-wait=" + options.quietWait()));
    }

    private void memory(Report report) throws Exception {
        String command = command("memory") + " --rate=" + options.rate() + " --seconds=" + options.seconds();
        StringBuilder whyNot = new StringBuilder();
        Optional<Path> jar = NodeJvm.findJar(options.jar(), whyNot);
        if (jar.isEmpty()) {
            report.memoryPending(whyNot.toString(), command);
            return;
        }
        List<MemoryRun.Result> results = new ArrayList<>();
        int group = 0;
        for (MemoryRun.JvmConfiguration configuration : MemoryRun.CONFIGURATIONS) {
            MemoryRun.Result result = MemoryRun.run(broker, jar.get(), configuration, "mem" + ++group, options.rate(),
                    options.seconds(), OUT);
            System.out.printf("memory %s: peak RSS %d MiB, heap after GC %.1f MiB%n", result.label(),
                    result.peakKb() / 1024, result.heapAfterGc() / 1048576.0);
            results.add(result);
        }
        report.memory(results, command);
    }

    private void startup(Report report) throws Exception {
        StringBuilder whyNot = new StringBuilder();
        Optional<Path> jar = NodeJvm.findJar(options.jar(), whyNot);
        StartupRun.Result result = jar.isEmpty() ? StartupRun.Result.pending(whyNot.toString())
                : StartupRun.run(broker, jar.get(), MemoryRun.CONFIGURATIONS.get(0).flags(), options.rounds(), OUT);
        report.startup(result, command("startup") + " --rounds=" + options.rounds());
    }

    private void failover(Report report) throws Exception {
        StringBuilder whyNot = new StringBuilder();
        Optional<Path> jar = NodeJvm.findJar(options.jar(), whyNot);
        FailoverRun.Result result = jar.isEmpty() ? FailoverRun.Result.pending(whyNot.toString())
                : FailoverRun.run(broker, jar.get(), MemoryRun.CONFIGURATIONS.get(0).flags(), options.rounds(), OUT);
        report.failover(result, command("failover") + " --rounds=" + options.rounds());
    }

    /**
     * The main job, 100 000 lines by default, each topology with a round with a worker
     * killed (issues 14, 27).
     */
    private void mainJob(Report report) throws Exception {
        mainJob(report, "mainjob", List.of(MainJobRun.R1), 50, true, options.rounds());
    }

    /**
     * The main job at steady state (issue 34): the 1 000 000-line log, every topology of
     * {@code --topology} (R1 and R3 by default) one after the other in the same run, no
     * kill round; CrowdSec in the first round of each topology only (3 to 15 minutes a
     * round on 2 cores), fail2ban-regex in every round.
     */
    private void steady(Report report) throws Exception {
        mainJob(report, "steady", MainJobRun.TOPOLOGIES, BenchOptions.STEADY_LOG_DAYS, false, 1);
    }

    private void mainJob(Report report, String scenario, List<String> topologies, int days, boolean killRound,
            int crowdSecRounds) throws Exception {
        StringBuilder whyNot = new StringBuilder();
        Optional<Path> jar = NodeJvm.findJar(options.jar(), whyNot);
        int logDays = options.logDays(days);
        for (String topology : options.topologies(topologies)) {
            MainJobRun.Result result = jar.isEmpty() ? MainJobRun.Result.pending(topology, logDays, whyNot.toString())
                    : MainJobRun.run(jar.get(), topology, logDays, options.rounds(), killRound,
                            options.crowdSecRounds(crowdSecRounds), OUT);
            report.mainJob(result, command(scenario) + " --topology=" + topology + " --rounds=" + options.rounds()
                    + (logDays == days ? "" : " --log-days=" + logDays));
        }
    }

    private void partitions(Report report) throws Exception {
        String command = command("partitions") + " --rounds=" + options.rounds() + " --days=" + options.days()
                + " --line-rate=" + options.lineRate();
        StringBuilder whyNot = new StringBuilder();
        Optional<Path> jar = NodeJvm.findJar(options.jar(), whyNot);
        if (jar.isEmpty()) {
            report.partitionsPending(whyNot.toString(), command);
            return;
        }
        report.partitions(
                PartitionsRun.run(broker, jar.get(), options.rounds(), options.days(), options.lineRate(), OUT),
                command);
    }

    /**
     * A service's {@code @NatsListener} against a plain jnats consumer, each a fresh JVM
     * on stored orders (issue 42; {@link ListenerOutsideRun}).
     */
    private void listenerOutside(Report report) throws Exception {
        String command = command("listener-outside") + " --rounds=" + options.rounds()
                + (options.orders() == 20_000 ? "" : " --orders=" + options.orders())
                + (options.batch() == 0 ? "" : " --batch=" + options.batch())
                + (options.jvmFlags().isEmpty() ? "" : " --jvm-flags='" + String.join(" ", options.jvmFlags()) + "'")
                + (options.quietWait() == 60 ? "" : " --quiet-wait=" + options.quietWait());
        String loadBefore = Machine.load();
        List<ListenerOutsideRun.Result[]> rounds = new ListenerOutsideRun(broker, options.orders(), options.batch(),
                options.jvmFlags(), Duration.ofSeconds(options.quietWait()), OUT)
            .run(options.rounds());
        report.section(
                "A service's listener against plain jnats, from outside: " + options.orders()
                        + " stored orders, fresh JVMs"
                        + (options.jvmFlags().isEmpty() ? "" : " (" + String.join(" ", options.jvmFlags()) + ")"),
                command, "Load average (1, 5, 15 min; 2 cores): " + loadBefore + " at the start, " + Machine.load()
                        + " at the end.\n\n" + ListenerOutsideRun.table(rounds));
    }

    /**
     * @return the clients of a throughput round on the substrate, of those
     * {@code --hop-clients} names
     */
    private List<String> clients(Substrate substrate) {
        return HopClients.on(substrate, options.hopClients());
    }

    private HopClient client(Substrate substrate, String name) throws Exception {
        return HopClients.create(name, substrate, broker.url(), options);
    }

    /**
     * A fresh edge per run, so each run has its own durable consumer: a route edge
     * between two pipelines, the hop most of a cluster's events take (on an entry edge
     * from {@code _external} an observed publish whose trace is sampled out writes its
     * decision too, costing what the {@code product-traceparent} client shows).
     */
    private RouteEdge nextEdge() {
        return new RouteEdge("bench", "source", "p" + ++edges);
    }

    private void cleanUp(HopClient client, RouteEdge edge) throws Exception {
        if (client.substrate() == Substrate.JETSTREAM) {
            broker.deleteConsumer(client.durable(edge));
        }
        broker.purgeRouting();
    }

    private static void progress(String what, ThroughputRun.Result result) {
        System.out.printf(
                "%s %s: %,.0f events/s (last PubAck %.2f s, total %.2f s; CPU/event %.0f us JVM + %.0f us "
                        + "server; other processes %.0f%% before, %.0f%% during)%s%n",
                what, result.client(), result.eventsPerSecond(), result.publishSeconds(), result.totalSeconds(),
                result.jvmMicros(), result.serverMicros(), result.foreignBefore(), result.foreignDuring(),
                result.clean() ? "" : " INCOMPLETE: " + result);
    }

    private static String command(String scenario) {
        return "scripts/bench.sh --scenarios=" + scenario;
    }

}
