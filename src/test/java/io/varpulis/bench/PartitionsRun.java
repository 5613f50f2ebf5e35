package io.varpulis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Issue 16's scenario: the main job ({@code java -jar ... demo}, a coordinator and two
 * workers from the jar) on the harness's server, with {@code detect} in 1 and then 2
 * partitions by {@code src_ip}, no kill, streaming the sample over {@code --days} days
 * (scripts/make-log.sh) as fast as the stream takes it ({@code --rate} lines/s). Per run:
 * the demo's own end-to-end time (first publish until every line was processed and the
 * last alert written) and whether the run passed (exit 0: every line, failure and alert
 * accounted for). Rounds alternate which partition count goes first.
 */
final class PartitionsRun {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final long RUN_TIMEOUT_MINUTES = 20;

    private PartitionsRun() {
    }

    /**
     * One run of the main job.
     *
     * @param partitions detect's partitions
     * @param lines lines streamed
     * @param secondsEndToEnd first publish to the last line processed and the last alert
     * written
     * @param passed whether the demo exited 0 with result OK
     * @param note the demo's problems or error when it did not pass
     */
    record Result(int partitions, long lines, double secondsEndToEnd, boolean passed, String note) {

        double linesPerSecond() {
            return lines / secondsEndToEnd;
        }
    }

    static List<Result> run(Broker broker, Path jar, int rounds, int days, int rate, Path out) throws Exception {
        Path log = out.resolve("partitions-" + days + "d.log");
        if (!Files.exists(log)) {
            Files.createDirectories(out);
            Process make = new ProcessBuilder("scripts/make-log.sh", "--days", String.valueOf(days), "--year", "2026",
                    log.toString())
                .inheritIO()
                .start();
            if (make.waitFor() != 0) {
                throw new IllegalStateException("scripts/make-log.sh --days " + days + " failed");
            }
        }
        List<Result> results = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            int[] order = round % 2 == 0 ? new int[] { 1, 2 } : new int[] { 2, 1 };
            for (int partitions : order) {
                Result result = once(broker, jar, log, partitions, rate, out, round + 1);
                System.out.printf("partitions round %d, detect in %d: %.1f s end to end (%.0f lines/s)%s%n", round + 1,
                        partitions, result.secondsEndToEnd(), result.linesPerSecond(),
                        result.passed() ? "" : " FAILED: " + result.note());
                results.add(result);
            }
        }
        return results;
    }

    private static Result once(Broker broker, Path jar, Path log, int partitions, int rate, Path out, int round)
            throws Exception {
        String name = "partitions-" + partitions + "-round-" + round;
        Path summary = out.resolve(name + "-summary.json");
        Path alerts = out.resolve(name + "-alerts.jsonl");
        Files.deleteIfExists(summary);
        Files.deleteIfExists(alerts);
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar.toString(), "demo", "--nats-url", broker.url(), "--input", log.toString(), "--year", "2026",
                "--rate", String.valueOf(rate), "--no-kill", "--detect-partitions", String.valueOf(partitions),
                "--summary-json", summary.toString(), "--alerts-out", alerts.toString());
        Process demo = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(out.resolve(name + ".log").toFile())
            .start();
        if (!demo.waitFor(RUN_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            demo.destroyForcibly();
            return new Result(partitions, 0, Double.NaN, false, "no end within " + RUN_TIMEOUT_MINUTES + " min");
        }
        if (!Files.isRegularFile(summary)) {
            return new Result(partitions, 0, Double.NaN, false,
                    "exit " + demo.exitValue() + ", no summary (see " + out.resolve(name + ".log") + ")");
        }
        JsonNode json = JSON.readTree(summary.toFile());
        boolean passed = demo.exitValue() == 0 && "OK".equals(json.path("result").asText());
        return new Result(partitions, json.path("lines_read").asLong(), json.path("seconds_end_to_end").asDouble(),
                passed, passed ? "" : json.path("problems").toString() + json.path("error").asText(""));
    }

}
