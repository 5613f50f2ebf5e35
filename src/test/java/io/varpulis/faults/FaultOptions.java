package io.varpulis.faults;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fault suite's command line, {@code --name=value}. Defaults are issue 11's scenarios at full size.
 *
 * @param scenarios which to run, in order: {@code a} (one server killed -9 and restarted under load), {@code b}
 *                  (three servers, R3, the routing stream's leader killed -9 and restarted 20 s later), {@code c} (a
 *                  worker and the coordinator killed -9 together), {@code d} (NATS down 60 s), {@code e} (bad input
 *                  on a routing subject), {@code sync} (what {@code sync_interval: always} costs on three servers)
 * @param runs      runs of each demo scenario ({@code b} is "5 runs of 5" when done)
 * @param days      the log: the sample over that many consecutive days (2 000 lines a day), made by
 *                  {@code scripts/make-log.sh --days}
 * @param input     a log file for the demo ({@code --input}) instead of {@code --days}, or empty
 * @param rates     lines/s the demo streams, by scenario
 * @param outage    how long NATS stays down in scenario {@code d}, seconds
 * @param restart   how long the killed leader stays down in scenario {@code b}, seconds
 * @param jar       the node jar (empty: target/varpulis-cluster-*.jar)
 */
record FaultOptions(List<String> scenarios, int runs, int days, String input, Map<String, Integer> rates, int outage,
                    int restart, String jar) {

    static final List<String> ALL = List.of("a", "b", "c", "d", "e", "sync");

    private static final Set<String> NAMES = Set.of("scenarios", "runs", "days", "input", "rate-a", "rate-b",
            "rate-c", "rate-d", "outage", "restart", "jar");

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
        Map<String, Integer> rates = Map.of("a", number(values, "rate-a", 5_000), "b", number(values, "rate-b", 20_000),
                "c", number(values, "rate-c", 5_000), "d", number(values, "rate-d", 1_000));
        return new FaultOptions(scenarios, number(values, "runs", 1), number(values, "days", 50),
                values.getOrDefault("input", ""), rates, number(values, "outage", 60), number(values, "restart", 20),
                values.getOrDefault("jar", ""));
    }

    private static int number(Map<String, String> values, String name, int fallback) {
        String value = values.get(name);
        try {
            return value == null ? fallback : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a number, got '" + value + "'");
        }
    }
}
