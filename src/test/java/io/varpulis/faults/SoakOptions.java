package io.varpulis.faults;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The soak's command line, {@code --name=value} or {@code --name value} (issue 43,
 * {@link SoakMain}).
 *
 * @param minutes how long the main job streams, minutes ({@code --minutes}, 30): the log
 * is made long enough for that at {@code --rate} and streamed at the pace that ends it
 * then
 * @param seed the seed of the nemesis schedule: which nemesis, when, on which node or
 * server ({@code --seed}; a random one, printed, when absent)
 * @param rate lines/s the job streams ({@code --rate}, 55: a steady load that two cores
 * carry with the nemeses on)
 * @param everyMin the shortest time from one nemesis's start to the next one's, seconds
 * ({@code --every=60-180})
 * @param everyMax the longest, seconds
 * @param nemeses which nemeses are drawn from ({@code --nemeses}, all of
 * {@link Nemesis#NAMES} by default)
 * @param pause how long a paused node stays stopped, seconds ({@code --pause}, 20, the
 * fault suite's)
 * @param cut how long the partitioned server stays cut off, seconds ({@code --cut}, 30,
 * the fault suite's)
 * @param jar the node jar (empty: target/varpulis-cluster-*.jar)
 */
record SoakOptions(int minutes, long seed, int rate, int everyMin, int everyMax, List<String> nemeses, int pause,
        int cut, String jar) {

    private static final Set<String> NAMES = Set.of("minutes", "seed", "rate", "every", "nemeses", "pause", "cut",
            "jar");

    /**
     * @param args {@code --name=value} arguments
     * @param randomSeed the seed when {@code --seed} is absent
     * @return the options
     * @throws IllegalArgumentException naming the argument and what it takes
     */
    static SoakOptions parse(String[] args, long randomSeed) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("expected --name=value, got '" + arg + "'; names: " + NAMES);
            }
            if (arg.contains("=")) {
                values.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            }
            else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                values.put(arg.substring(2), args[++i]);
            }
            else {
                throw new IllegalArgumentException(
                        "--" + arg.substring(2) + " needs a value (--name=value or " + "--name value)");
            }
        }
        if (!NAMES.containsAll(values.keySet())) {
            throw new IllegalArgumentException("unknown option(s) " + values.keySet() + "; names: " + NAMES);
        }
        String every = values.getOrDefault("every", "60-180");
        String[] bounds = every.split("-");
        if (bounds.length != 2) {
            throw new IllegalArgumentException("--every takes MIN-MAX seconds, got '" + every + "'");
        }
        int everyMin = positive("every", bounds[0]);
        int everyMax = positive("every", bounds[1]);
        if (everyMax < everyMin) {
            throw new IllegalArgumentException("--every takes MIN-MAX seconds with MIN <= MAX, got '" + every + "'");
        }
        List<String> nemeses = Arrays.stream(values.getOrDefault("nemeses", String.join(",", Nemesis.NAMES)).split(","))
            .map(String::trim)
            .filter(n -> !n.isEmpty())
            .toList();
        if (nemeses.isEmpty() || !Nemesis.NAMES.containsAll(nemeses)) {
            throw new IllegalArgumentException("--nemeses takes some of " + Nemesis.NAMES + ", got " + nemeses);
        }
        long seed;
        try {
            seed = values.containsKey("seed") ? Long.parseLong(values.get("seed")) : randomSeed;
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("--seed must be a number, got '" + values.get("seed") + "'");
        }
        return new SoakOptions(positive("minutes", values.getOrDefault("minutes", "30")), seed,
                positive("rate", values.getOrDefault("rate", "55")), everyMin, everyMax, nemeses,
                positive("pause", values.getOrDefault("pause", "20")),
                positive("cut", values.getOrDefault("cut", "30")), values.getOrDefault("jar", ""));
    }

    /**
     * @return the days of the sample log ({@code scripts/make-log.sh --days}, 2 000 lines
     * a day) that last {@link #minutes} at {@link #rate}
     */
    int days() {
        return (int) Math.max(1, Math.ceil(rate * 60.0 * minutes / 2000));
    }

    /**
     * @param lines the log's lines
     * @return the pace that streams them in {@link #minutes}, lines/s
     */
    int paceFor(long lines) {
        return (int) Math.max(1, Math.round(lines / (60.0 * minutes)));
    }

    /**
     * @return the command line that repeats this run's schedule
     */
    String repeat() {
        return "scripts/soak.sh --minutes=" + minutes + " --seed=" + seed + (rate == 55 ? "" : " --rate=" + rate)
                + (everyMin == 60 && everyMax == 180 ? "" : " --every=" + everyMin + "-" + everyMax)
                + (nemeses.equals(Nemesis.NAMES) ? "" : " --nemeses=" + String.join(",", nemeses));
    }

    private static int positive(String name, String value) {
        try {
            int number = Integer.parseInt(value.trim());
            if (number < 1) {
                throw new IllegalArgumentException("--" + name + " must be at least 1, got " + number);
            }
            return number;
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a number, got '" + value + "'");
        }
    }

}
