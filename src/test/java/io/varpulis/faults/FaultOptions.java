package io.varpulis.faults;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fault suite's command line, {@code --name=value}. Defaults are issue 11's and issue
 * 25's scenarios at full size.
 *
 * @param scenarios which to run, in order: {@code a} (one server killed -9 and restarted
 * under load), {@code b} (three servers, R3, the routing stream's leader killed -9 and
 * restarted 20 s later), {@code c} (a worker and the coordinator killed -9 together),
 * {@code d} (NATS down 60 s), {@code e} (bad input on a routing subject), {@code sync}
 * (what {@code sync_interval: always} costs on three servers), and issue 25's
 * {@code pause-alerts}, {@code pause-detect}, {@code pause-leader}, {@code clock-ahead}
 * ({@link NodeFaults}), {@code slow-fsync}, {@code small-store}, {@code partition}
 * ({@link ServerFaults}), issue 30's {@code slow-disk} and {@code disk-full}
 * ({@link DiskFaults}), and issue 43's {@code power-loss} ({@link PowerLoss})
 * @param runs runs of each demo scenario ({@code b} is "5 runs of 5" when done)
 * @param days the log: the sample over that many consecutive days (2 000 lines a day),
 * made by {@code scripts/make-log.sh --days}
 * @param input a log file for the demo ({@code --input}) instead of {@code --days}, or
 * empty
 * @param rates lines/s the demo streams, by scenario ({@code --rate-a} ...
 * {@code --rate-d}; {@code --rate} for issue 25's)
 * @param outage how long NATS stays down in scenario {@code d}, seconds
 * @param restart how long the killed leader stays down in scenario {@code b}, seconds
 * @param pause how long a paused process stays stopped ({@code pause-*}), seconds
 * @param skew how far ahead the leader's clock runs ({@code clock-ahead}), seconds
 * @param fsyncDelays each fsync's delay in {@code slow-fsync}, ms, one run of each
 * ({@code --fsync-delays=20,100})
 * @param slowFor how long the fsyncs stay slow ({@code slow-fsync}), seconds
 * @param cut how long the routing leader stays cut off ({@code partition}), seconds
 * @param jar the node jar (empty: target/varpulis-cluster-*.jar)
 * @param diskDelay each fsync's delay on n2 in {@code slow-disk}, ms, from its start to
 * the end
 * @param storeMegabytes every server's tmpfs store in {@code disk-full}, MB: 2 GB by
 * default, whose 75 % (nats-server's store limit) holds the routing stream's 1 GiB
 * max_bytes, so that the streams are created as in production rather than bounded by
 * max_age (SPEC section 3's small-store fallback); a tmpfs takes memory only for what is
 * written, the filled one about 1.5 GB
 * @param fullFor how long the store stays full in {@code disk-full}, seconds
 * @param powerLossAt how far into the stream the power goes off in {@code power-loss},
 * seconds ({@code --power-loss-at}, 8)
 * @param powerOff how long after the kill the servers start again in {@code power-loss},
 * seconds ({@code --power-off}, 3)
 * @param syncs the servers' sync settings {@code power-loss} runs under, one row each
 * ({@code --syncs=always,default}: {@code sync_interval: always}, and the server's
 * default)
 */
record FaultOptions(List<String> scenarios, int runs, int days, String input, Map<String, Integer> rates, int outage,
        int restart, int pause, int skew, List<Integer> fsyncDelays, int slowFor, int cut, String jar, int diskDelay,
        int storeMegabytes, int fullFor, int powerLossAt, int powerOff, List<String> syncs) {

    /** Issue 25's scenarios, streamed at {@code --rate}. */
    static final List<String> ISSUE_25 = List.of("pause-alerts", "pause-detect", "pause-leader", "clock-ahead",
            "slow-fsync", "small-store", "partition");

    /** Issue 30's scenarios, streamed at {@code --rate} too. */
    static final List<String> ISSUE_30 = List.of("slow-disk", "disk-full");

    /** Issue 43's scenarios, streamed at {@code --rate} too. */
    static final List<String> ISSUE_43 = List.of("power-loss");

    static final List<String> ALL = List.of("a", "b", "c", "d", "e", "sync", "pause-alerts", "pause-detect",
            "pause-leader", "clock-ahead", "slow-fsync", "small-store", "partition", "slow-disk", "disk-full",
            "power-loss");

    private static final Set<String> NAMES = Set.of("scenarios", "runs", "days", "input", "rate-a", "rate-b", "rate-c",
            "rate-d", "rate", "outage", "restart", "pause", "skew", "fsync-delays", "slow-for", "cut", "jar",
            "disk-delay", "store-mb", "full-for", "power-loss-at", "power-off", "syncs");

    static FaultOptions parse(String[] args) {
        Map<String, String> values = new HashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("expected --name=value, got '" + arg + "'; names: " + NAMES);
            }
            values.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        if (!NAMES.containsAll(values.keySet())) {
            throw new IllegalArgumentException("unknown option(s) " + values.keySet() + "; names: " + NAMES);
        }
        List<String> scenarios = Arrays.asList(values.getOrDefault("scenarios", "a,b,c,d,e").split(","));
        if (!ALL.containsAll(scenarios)) {
            throw new IllegalArgumentException("unknown scenario in " + scenarios + "; known: " + ALL);
        }
        Map<String, Integer> rates = new HashMap<>(
                Map.of("a", number(values, "rate-a", 5_000), "b", number(values, "rate-b", 20_000), "c",
                        number(values, "rate-c", 5_000), "d", number(values, "rate-d", 1_000)));
        int rate = number(values, "rate", 3_000);
        ISSUE_25.forEach(s -> rates.put(s, rate));
        ISSUE_30.forEach(s -> rates.put(s, rate));
        ISSUE_43.forEach(s -> rates.put(s, rate));
        List<String> syncs = Arrays.stream(values.getOrDefault("syncs", "always,default").split(","))
            .map(String::trim)
            .toList();
        if (syncs.isEmpty() || !PowerLoss.SYNCS.containsAll(syncs)) {
            throw new IllegalArgumentException("--syncs takes " + PowerLoss.SYNCS + ", got " + syncs);
        }
        List<Integer> delays = Arrays.stream(values.getOrDefault("fsync-delays", "20,100").split(","))
            .map(d -> number(Map.of("fsync-delays", d.trim()), "fsync-delays", 0))
            .toList();
        return new FaultOptions(scenarios, number(values, "runs", 1), number(values, "days", 50),
                values.getOrDefault("input", ""), Map.copyOf(rates), number(values, "outage", 60),
                number(values, "restart", 20), number(values, "pause", 20), number(values, "skew", 30), delays,
                number(values, "slow-for", 60), number(values, "cut", 30), values.getOrDefault("jar", ""),
                positive(values, "disk-delay", 100), positive(values, "store-mb", 2048),
                positive(values, "full-for", 20), positive(values, "power-loss-at", 8),
                positive(values, "power-off", 3), syncs);
    }

    /**
     * @return lines/s of issue 25's scenarios ({@code --rate})
     */
    int rate() {
        return rates.get("pause-alerts");
    }

    private static int positive(Map<String, String> values, String name, int fallback) {
        int value = number(values, name, fallback);
        if (value < 1) {
            throw new IllegalArgumentException("--" + name + " must be at least 1, got " + value);
        }
        return value;
    }

    private static int number(Map<String, String> values, String name, int fallback) {
        String value = values.get(name);
        try {
            return value == null ? fallback : Integer.parseInt(value);
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a number, got '" + value + "'");
        }
    }
}
