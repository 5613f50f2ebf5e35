package io.varpulis.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What a soak's samples say (issue 43): per series (one process of one node, see
 * {@link SoakSample#series()}), each metric's least-squares slope per minute over the
 * last {@link #WINDOW_MINUTES} minutes of the run, and whether it is flat.
 * <p>
 * A series is judged on its samples in the window taken at least {@link #WARM_UP_MINUTES}
 * after its process started (class loading, JIT, pools filling), when they span at least
 * half the window (10 minutes in a 30-minute run); a shorter one (a node restarted late)
 * is reported, not judged. Flat means a slope below each {@link Metric}'s threshold in
 * absolute value; the thresholds are sized so that a leak of the kinds a soak looks for
 * crosses them: something kept per line streamed (the job streams 55 lines/s, 3 300 a
 * minute) or something kept per nemesis (one every 1 to 3 minutes).
 */
final class SoakTrend {

    /** The window judged: the last 20 minutes of the run (the whole run when shorter). */
    static final double WINDOW_MINUTES = 20;

    /** Samples this soon after a process started are not judged. */
    static final double WARM_UP_MINUTES = 3;

    /** A metric sampled, with its flatness threshold. */
    enum Metric {

        /**
         * Resident memory, MB: flat below 1 MB/min, about 300 bytes kept per line at 55
         * lines/s (a line's text alone is more), 1.4 GB a day, so a pod's memory limit
         * within a day; what the JVM's native side does (arenas, metaspace, code cache)
         * moves RSS by less once warm.
         */
        RSS("RSS MB", 1.0, s -> s.rssKb() / 1024.0),
        /**
         * Heap after a full collection, MB: flat below 0.5 MB/min, about 150 bytes kept
         * per line at 55 lines/s.
         */
        HEAP("heap after GC MB", 0.5, s -> s.heapKb() / 1024.0),
        /**
         * Threads: flat below 0.1/min, 2 threads in 20 minutes; a thread kept per nemesis
         * (one every 1 to 3 minutes) is at least 0.33/min.
         */
        THREADS("threads", 0.1, SoakSample::threads),
        /**
         * Open file descriptors: flat below 0.1/min, as threads (a socket or file kept
         * per nemesis).
         */
        FDS("fds", 0.1, SoakSample::fds);

        private final String label;

        private final double threshold;

        private final ToDoubleFunction<SoakSample> value;

        Metric(String label, double threshold, ToDoubleFunction<SoakSample> value) {
            this.label = label;
            this.threshold = threshold;
            this.value = value;
        }

        /**
         * @return its name with its unit
         */
        String label() {
            return label;
        }

        /**
         * @return the largest slope per minute, in absolute value, that is flat
         */
        double threshold() {
            return threshold;
        }

        /**
         * @param sample a sample
         * @return its value of this metric, or NaN when not measured in it
         */
        double of(SoakSample sample) {
            return this == HEAP && sample.heapKb() < 0 ? Double.NaN : value.applyAsDouble(sample);
        }

    }

    /**
     * One metric of one series over the judged samples.
     *
     * @param points samples with a value
     * @param first the first value
     * @param last the last value
     * @param slope the least-squares slope per minute, NaN with fewer than 3 points
     */
    record Fit(int points, double first, double last, double slope) {
    }

    /**
     * One series judged.
     *
     * @param series {@code node@pid}
     * @param fromMinute its first judged sample's minute
     * @param toMinute its last one's
     * @param fits per metric
     * @param judged whether its judged samples span enough of the window to be judged
     */
    record Judged(String series, double fromMinute, double toMinute, Map<Metric, Fit> fits, boolean judged) {

        /**
         * @return whether every metric with a slope is flat (true for a series not
         * judged)
         */
        boolean flat() {
            return !judged || fits.entrySet().stream().allMatch(e -> SoakTrend.flat(e.getKey(), e.getValue().slope()));
        }
    }

    private SoakTrend() {
    }

    /**
     * @param minutes x, minutes
     * @param values y
     * @return the least-squares slope of y over x per minute, NaN with fewer than 3
     * points or no spread in x
     */
    static double slopePerMinute(double[] minutes, double[] values) {
        int n = minutes.length;
        if (n < 3 || values.length != n) {
            return Double.NaN;
        }
        double meanX = 0;
        double meanY = 0;
        for (int i = 0; i < n; i++) {
            meanX += minutes[i] / n;
            meanY += values[i] / n;
        }
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < n; i++) {
            sxy += (minutes[i] - meanX) * (values[i] - meanY);
            sxx += (minutes[i] - meanX) * (minutes[i] - meanX);
        }
        return sxx == 0 ? Double.NaN : sxy / sxx;
    }

    /**
     * @param metric a metric
     * @param slope its slope per minute
     * @return whether it is flat: below the metric's threshold in absolute value (a
     * missing slope is not judged: flat)
     */
    static boolean flat(Metric metric, double slope) {
        return Double.isNaN(slope) || Math.abs(slope) < metric.threshold();
    }

    /**
     * @param samples every sample of the run
     * @return each series judged over the last {@link #WINDOW_MINUTES} minutes of the
     * samples, in the order they first appear
     */
    static List<Judged> judge(List<SoakSample> samples) {
        double end = samples.stream().mapToDouble(SoakSample::minute).max().orElse(0);
        double begin = samples.stream().mapToDouble(SoakSample::minute).min().orElse(0);
        double window = Math.min(WINDOW_MINUTES, end - begin);
        double from = end - window;
        Map<String, List<SoakSample>> bySeries = new LinkedHashMap<>();
        for (SoakSample sample : samples) {
            if (sample.minute() >= from && sample.minute() >= sample.startMinute() + WARM_UP_MINUTES) {
                bySeries.computeIfAbsent(sample.series(), s -> new ArrayList<>()).add(sample);
            }
        }
        List<Judged> judged = new ArrayList<>();
        bySeries.forEach((series, list) -> {
            Map<Metric, Fit> fits = new LinkedHashMap<>();
            for (Metric metric : Metric.values()) {
                List<SoakSample> valued = list.stream().filter(s -> !Double.isNaN(metric.of(s))).toList();
                double[] x = valued.stream().mapToDouble(SoakSample::minute).toArray();
                double[] y = valued.stream().mapToDouble(metric::of).toArray();
                fits.put(metric, new Fit(valued.size(), y.length == 0 ? Double.NaN : y[0],
                        y.length == 0 ? Double.NaN : y[y.length - 1], slopePerMinute(x, y)));
            }
            double first = list.get(0).minute();
            double last = list.get(list.size() - 1).minute();
            judged.add(new Judged(series, first, last, fits, window > 0 && last - first >= window / 2));
        });
        return judged;
    }

    /**
     * @param judged the series
     * @return a Markdown table: per series its judged span, each metric's first and last
     * value and slope per minute, and the verdict
     */
    static String table(List<Judged> judged) {
        StringBuilder table = new StringBuilder("| series (node@pid) | judged minutes |");
        for (Metric metric : Metric.values()) {
            table.append(' ').append(metric.label()).append(" first → last (slope/min) |");
        }
        table.append(" verdict |\n|---|---|");
        table.append("---|".repeat(Metric.values().length)).append("---|\n");
        for (Judged series : judged) {
            table.append(String.format(Locale.ROOT, "| %s | %.1f-%.1f |", series.series(), series.fromMinute(),
                    series.toMinute()));
            series.fits().forEach((metric, fit) -> table.append(' ').append(cell(metric, fit)).append(" |"));
            table.append(' ')
                .append(!series.judged() ? "not judged (too short)" : series.flat() ? "flat" : "NOT FLAT")
                .append(" |\n");
        }
        return table.toString();
    }

    private static String cell(Metric metric, Fit fit) {
        if (fit.points() == 0) {
            return "-";
        }
        boolean whole = metric == Metric.THREADS || metric == Metric.FDS;
        String format = whole ? "%.0f → %.0f (%+.3f)" : "%.1f → %.1f (%+.3f)";
        return String.format(Locale.ROOT, format, fit.first(), fit.last(), fit.slope())
                + (flat(metric, fit.slope()) ? "" : " **");
    }

}
