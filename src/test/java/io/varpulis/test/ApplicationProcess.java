package io.varpulis.test;

import io.varpulis.VarpulisClusterApplication;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The application's {@code main} run as its own JVM, as {@code java -jar} runs it, on the
 * test classpath: what a user who types a command line sees (its output and exit status).
 *
 * @param exitCode the process's exit status
 * @param output everything it wrote to stdout and stderr
 */
public record ApplicationProcess(int exitCode, String output) {

    /**
     * @param timeout how long the process may run before it is killed (the test then
     * fails)
     * @param args the command line after {@code java -jar varpulis-cluster.jar}
     * @return the finished process
     * @throws IOException when the JVM cannot be started
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when it did not finish in time
     */
    public static ApplicationProcess run(Duration timeout, String... args) throws IOException, InterruptedException {
        return run(Path.of(System.getProperty("java.home"), "bin", "java"), VarpulisClusterApplication.class, timeout,
                args);
    }

    /**
     * @param java the {@code java} launcher to run it with
     * @param main the class whose {@code main} runs, on the test classpath
     * @param timeout how long the process may run before it is killed (the test then
     * fails)
     * @param args its arguments
     * @return the finished process
     * @throws IOException when the JVM cannot be started
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when it did not finish in time
     */
    public static ApplicationProcess run(Path java, Class<?> main, Duration timeout, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(
                List.of(java.toString(), "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Path log = Files.createTempFile("varpulis-cli-", ".log");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
                throw new AssertionError("'" + String.join(" ", args) + "' still ran after " + timeout.toSeconds()
                        + " s; output:\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
            return new ApplicationProcess(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        }
        finally {
            Files.deleteIfExists(log);
        }
    }
}
