package io.varpulis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JMH micro-benchmarks of {@code src/jmh/java} (per-event CPU of the decode, the
 * route ingress and the meters), run by {@code org.openjdk.jmh.Main} in a child JVM with
 * this JVM's classpath. They are compiled only with the Maven profile {@code bench},
 * which brings JMH; without it the table says so.
 */
final class MicroRun {

    private static final String JMH_MAIN = "org.openjdk.jmh.Main";

    private MicroRun() {
    }

    /**
     * @return the results, or empty when JMH is not on the classpath
     */
    static List<Result> run(Path outDir) throws Exception {
        try {
            Class.forName(JMH_MAIN);
        }
        catch (ClassNotFoundException e) {
            return List.of();
        }
        Files.createDirectories(outDir);
        Path json = outDir.resolve("jmh.json");
        Process jmh = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), JMH_MAIN, "-rf", "json", "-rff", json.toString(),
                "io.varpulis.bench.*Benchmark")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(outDir.resolve("jmh.log").toFile()))
            .start();
        if (!jmh.waitFor(20, TimeUnit.MINUTES)) {
            jmh.destroyForcibly();
            throw new IllegalStateException("JMH did not finish within 20 minutes; see " + outDir.resolve("jmh.log"));
        }
        if (jmh.exitValue() != 0) {
            throw new IllegalStateException(
                    "JMH exited with " + jmh.exitValue() + "; see " + outDir.resolve("jmh.log"));
        }
        List<Result> results = new ArrayList<>();
        for (JsonNode benchmark : new ObjectMapper().readTree(json.toFile())) {
            String name = benchmark.path("benchmark").asText();
            JsonNode metric = benchmark.path("primaryMetric");
            results.add(new Result(name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1),
                    metric.path("score").asDouble(), metric.path("scoreError").asDouble(),
                    metric.path("scoreUnit").asText()));
        }
        return results;
    }

    /**
     * @param benchmark {@code Class.method}
     * @param score the mean
     * @param error its 99.9 % confidence half-width
     * @param unit JMH's unit, ns/op
     */
    record Result(String benchmark, double score, double error, String unit) {
    }

}
