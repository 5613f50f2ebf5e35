package io.varpulis.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A soak's samples drawn as one small SVG (issue 43): a panel per metric of
 * {@link SoakTrend.Metric} against minutes since the job began streaming, a line per
 * series (a restarted node's new process is a new line in its node's colour), the judged
 * window shaded, and a tick at each nemesis's start.
 */
final class SoakPlot {

    private static final int WIDTH = 760;

    private static final int PANEL = 150;

    private static final int LEFT = 60;

    private static final int RIGHT = 130;

    private static final int TOP = 30;

    private static final String[] COLOURS = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
            "#e377c2" };

    private SoakPlot() {
    }

    /**
     * @param samples the run's samples
     * @param nemeses each nemesis's start minute and {@link Nemesis#NAMES} index
     * @param title the plot's title
     * @param svg the file written
     */
    static void write(List<SoakSample> samples, List<double[]> nemeses, String title, Path svg) throws IOException {
        double minX = samples.stream().mapToDouble(SoakSample::minute).min().orElse(0);
        double maxX = Math.max(minX + 1, samples.stream().mapToDouble(SoakSample::minute).max().orElse(1));
        List<String> nodes = samples.stream().map(SoakSample::node).distinct().sorted().toList();
        SoakTrend.Metric[] metrics = SoakTrend.Metric.values();
        int height = TOP + metrics.length * (PANEL + 25) + 10;
        int plotWidth = WIDTH - LEFT - RIGHT;
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
                        + "font-size=\"11\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n"
                        + "<text x=\"%d\" y=\"18\" font-size=\"13\">%s</text>%n",
                WIDTH, height, LEFT, escape(title)));
        for (int m = 0; m < metrics.length; m++) {
            SoakTrend.Metric metric = metrics[m];
            int top = TOP + m * (PANEL + 25);
            List<SoakSample> valued = samples.stream().filter(s -> !Double.isNaN(metric.of(s))).toList();
            double minY = valued.stream().mapToDouble(metric::of).min().orElse(0);
            double maxY = valued.stream().mapToDouble(metric::of).max().orElse(1);
            if (maxY - minY < 1) {
                maxY = minY + 1;
            }
            double lowY = minY;
            double spanY = maxY - minY;
            double windowFrom = Math.max(minX, maxX - SoakTrend.WINDOW_MINUTES);
            out.append(String.format(Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#f3f3f3\"/>%n"
                            + "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>%n"
                            + "<text x=\"%d\" y=\"%d\">%s</text>%n<text x=\"4\" y=\"%d\">%s</text>%n"
                            + "<text x=\"4\" y=\"%d\">%s</text>%n",
                    x(windowFrom, minX, maxX, plotWidth), top,
                    x(maxX, minX, maxX, plotWidth) - x(windowFrom, minX, maxX, plotWidth), PANEL, LEFT, top, plotWidth,
                    PANEL, LEFT + 4, top + 12, escape(metric.label()), top + 10, number(maxY), top + PANEL,
                    number(minY)));
            for (double[] nemesis : nemeses) {
                double x = x(nemesis[0], minX, maxX, plotWidth);
                out.append(String.format(Locale.ROOT,
                        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#bbb\" stroke-dasharray=\"2,2\"/>%n",
                        x, top, x, top + PANEL));
            }
            Map<String, List<SoakSample>> bySeries = new LinkedHashMap<>();
            valued.forEach(s -> bySeries.computeIfAbsent(s.series(), k -> new ArrayList<>()).add(s));
            bySeries.forEach((series, points) -> {
                String colour = COLOURS[nodes.indexOf(points.get(0).node()) % COLOURS.length];
                StringBuilder line = new StringBuilder();
                for (SoakSample s : points) {
                    line.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(s.minute(), minX, maxX, plotWidth),
                            top + PANEL - (metric.of(s) - lowY) / spanY * PANEL));
                }
                out.append(String.format(Locale.ROOT,
                        "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\" points=\"%s\"/>%n", colour,
                        line.toString().trim()));
            });
        }
        int axis = TOP + metrics.length * (PANEL + 25) - 12;
        out.append(String.format(Locale.ROOT,
                "<text x=\"%d\" y=\"%d\">%s min</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s min (shaded: "
                        + "the judged window; dashed: a nemesis)</text>%n",
                LEFT, axis, number(minX), LEFT + plotWidth, axis, number(maxX)));
        for (int i = 0; i < nodes.size(); i++) {
            out.append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
                    WIDTH - RIGHT + 10, TOP + i * 16, COLOURS[i % COLOURS.length], WIDTH - RIGHT + 24, TOP + i * 16 + 9,
                    escape(nodes.get(i))));
        }
        out.append("</svg>\n");
        Files.writeString(svg, out, StandardCharsets.UTF_8);
    }

    private static double x(double minute, double minX, double maxX, int plotWidth) {
        return LEFT + (minute - minX) / (maxX - minX) * plotWidth;
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, Math.abs(value) >= 100 ? "%.0f" : "%.1f", value);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

}
