package io.varpulis.bench;

import io.varpulis.nats.Substrate;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The harness's command line, {@code --name=value}. Defaults are issue 7's figures.
 *
 * @param events events per throughput run
 * @param warmup events per warm-up run (five per client and substrate, not reported)
 * @param rounds throughput rounds (the order product/raw alternates between rounds, the
 * median is reported), start-ups, and failover rounds
 * @param rate paced rate of the latency and memory scenarios, events/s
 * @param seconds duration of a paced run
 * @param rawBatch the raw baseline's pull batch size (jnats' default and the product's
 * are 500)
 * @param scenarios which scenarios to run: throughput, latency, memory, startup,
 * failover, micro (JMH)
 * @param substrates the substrates of the throughput and latency scenarios: jetstream,
 * core
 * @param jar the node jar for the start-up scenario (empty: look for
 * target/varpulis-cluster-*.jar)
 * @param days days of the sample the partitions scenario streams (scripts/make-log.sh: 2
 * 000 lines a day)
 * @param lineRate lines/s the partitions scenario streams at (the demo's --rate)
 * @param topology the mainjob and steady scenarios' NATS: {@code r1} (one server, R1
 * streams and state), {@code r3} (a 3-server cluster the harness starts, R3 streams and
 * state), or both ({@code r1,r3}, each in turn); empty: the scenario's default
 * ({@code r1} for mainjob, {@code r1,r3} for steady)
 * @param logDays days of the sample in the mainjob scenario's log (50: 100 000 lines; the
 * steady scenario's is 500 unless given)
 * @param baseline the JetStream baseline of the throughput and latency scenarios (and
 * their warm-up): {@code raw} (jnats alone, the targets' reference) or {@code raw-decode}
 * (jnats, and each event read with Jackson data binding)
 * @param hopClients the clients of the throughput rounds ({@link HopClients#ALL} by
 * default)
 * @param quietWait how long a timed throughput or latency run waits for other processes
 * to take under 10 % of the CPU, seconds (0: measure one second and start; the tables
 * show their share either way)
 * @param hopMode {@code live} (publisher and consumer at once, timed together) or
 * {@code stored} (every event stored first, the consumer timed alone; JetStream)
 * @param crowdSecRounds how many rounds of each topology, from the first, run CrowdSec in
 * mainjob and steady ({@code -1}: the scenario's default; {@code 0}: none, when a figure
 * of the same code stands for it, since a million lines take it 3-17 minutes)
 * @param orders orders stored for each run of the listener-outside scenario (issue 42)
 * @param batch listener-outside: the service's listener takes {@code List<Order>} batches
 * of up to this many (0: one order a call)
 * @param jvmFlags listener-outside: the flags both JVMs start with, space-separated
 * (empty: the JVM's defaults)
 */
record BenchOptions(int events, int warmup, int rounds, int rate, int seconds, int rawBatch, Set<String> scenarios,
        List<Substrate> substrates, String jar, int days, int lineRate, String topology, int logDays, String baseline,
        List<String> hopClients, int quietWait, String hopMode, int crowdSecRounds, int orders, int batch,
        List<String> jvmFlags) {

    /** The steady scenario's log: 1 000 000 lines, 8 000 alerts (issue 34). */
    static final int STEADY_LOG_DAYS = 500;

    static final List<String> BASELINES = List.of("raw", "raw-decode");

    static final List<String> ALL = List.of("throughput", "latency", "memory", "startup", "failover", "mainjob",
            "steady", "partitions", "micro", "listener-outside");

    static BenchOptions parse(String[] args) {
        Map<String, String> values = new HashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("expected --name=value, got '" + arg + "'; names: events, "
                        + "warmup, rounds, rate, seconds, raw-batch, scenarios (" + String.join(",", ALL) + "), "
                        + "substrates (jetstream,core), jar, days, line-rate, topology (r1, r3, r1,r3), log-days, "
                        + "baseline (raw, " + "raw-decode), hop-clients (" + String.join(",", HopClients.ALL)
                        + "), quiet-wait, " + "hop-mode (live, stored), crowdsec-rounds, orders, batch, jvm-flags");
            }
            values.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        Set<String> scenarios = Set
            .copyOf(Arrays.asList(values.getOrDefault("scenarios", String.join(",", ALL)).split(",")));
        if (!ALL.containsAll(scenarios)) {
            throw new IllegalArgumentException("unknown scenario in " + scenarios + "; known: " + ALL);
        }
        BenchOptions options = new BenchOptions(number(values, "events", 100_000), number(values, "warmup", 100_000),
                number(values, "rounds", 5), number(values, "rate", 2_000), number(values, "seconds", 15),
                number(values, "raw-batch", 500), scenarios,
                Arrays.stream(values.getOrDefault("substrates", "jetstream,core").split(","))
                    .map(Substrate::parse)
                    .distinct()
                    .toList(),
                values.getOrDefault("jar", ""), number(values, "days", 10), number(values, "line-rate", 20_000),
                values.getOrDefault("topology", ""), number(values, "log-days", 0),
                values.getOrDefault("baseline", "raw"),
                List.of(values.getOrDefault("hop-clients", String.join(",", HopClients.ALL)).split(",")),
                values.getOrDefault("quiet-wait", "60").equals("0") ? 0 : number(values, "quiet-wait", 60),
                values.getOrDefault("hop-mode", "live"),
                values.containsKey("crowdsec-rounds") && values.get("crowdsec-rounds").equals("0") ? 0
                        : values.containsKey("crowdsec-rounds") ? number(values, "crowdsec-rounds", 1) : -1,
                number(values, "orders", 20_000),
                values.getOrDefault("batch", "0").equals("0") ? 0 : number(values, "batch", 0),
                values.getOrDefault("jvm-flags", "").isBlank() ? List.of()
                        : List.of(values.get("jvm-flags").trim().split("\\s+")));
        if (!List.of("live", "stored").contains(options.hopMode())) {
            throw new IllegalArgumentException("--hop-mode must be live or stored, got '" + options.hopMode() + "'");
        }
        if (!options.topology().isEmpty()
                && !MainJobRun.TOPOLOGIES.containsAll(List.of(options.topology().split(",")))) {
            throw new IllegalArgumentException("--topology must be one of " + MainJobRun.TOPOLOGIES + " or both ("
                    + String.join(",", MainJobRun.TOPOLOGIES) + "), got '" + options.topology() + "'");
        }
        if (!HopClients.ALL.containsAll(options.hopClients())) {
            throw new IllegalArgumentException(
                    "unknown hop client in " + options.hopClients() + "; known: " + HopClients.ALL);
        }
        if (!BASELINES.contains(options.baseline())) {
            throw new IllegalArgumentException(
                    "--baseline must be one of " + BASELINES + ", got '" + options.baseline() + "'");
        }
        values.keySet()
            .removeAll(Set.of("events", "warmup", "rounds", "rate", "seconds", "raw-batch", "scenarios", "substrates",
                    "jar", "days", "line-rate", "topology", "log-days", "baseline", "hop-clients", "quiet-wait",
                    "hop-mode", "crowdsec-rounds", "orders", "batch", "jvm-flags"));
        if (!values.isEmpty()) {
            throw new IllegalArgumentException("unknown option(s) " + values.keySet());
        }
        return options;
    }

    /**
     * @param fallback the scenario's default topologies
     * @return the topologies {@code --topology} names, or the fallback
     */
    List<String> topologies(List<String> fallback) {
        return topology.isEmpty() ? fallback : List.of(topology.split(","));
    }

    /**
     * @param fallback the scenario's default
     * @return {@code --crowdsec-rounds}, or the fallback
     */
    int crowdSecRounds(int fallback) {
        return crowdSecRounds < 0 ? fallback : crowdSecRounds;
    }

    /**
     * @param fallback the scenario's default
     * @return {@code --log-days}, or the fallback
     */
    int logDays(int fallback) {
        return logDays == 0 ? fallback : logDays;
    }

    /**
     * @return whether the throughput rounds time the consumer alone, on events stored
     * first
     */
    boolean storedHop() {
        return hopMode.equals("stored");
    }

    /**
     * @return whether the JetStream baseline decodes each event
     */
    boolean rawDecodes() {
        return baseline.equals("raw-decode");
    }

    boolean runs(String scenario) {
        return scenarios.contains(scenario);
    }

    private static int number(Map<String, String> values, String name, int fallback) {
        String value = values.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(value.replace("_", ""));
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a positive integer, got '" + value + "'");
        }
    }
}
