package io.varpulis.test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A command-line tool the monitoring tests run (promtool, kubeconform): found on the PATH
 * or at the path an environment variable names, else the test fails saying how to install
 * it (CI installs every one of them: a missing tool is a failure, never a skip).
 *
 * @param name the executable's name
 * @param path where it is
 */
public record ExternalTool(String name, Path path) {

    /** What one run printed and how it ended. */
    public record Run(int exitStatus, String output) {
    }

    /**
     * @param name the executable's name, looked up on the PATH
     * @param variable an environment variable that may name the executable instead
     * @param otherPlaces more places to look (a cache directory)
     * @param install how to install it, for the failure message
     * @return the tool
     * @throws AssertionError naming the install command when it is nowhere
     */
    public static ExternalTool require(String name, String variable, List<Path> otherPlaces, String install) {
        List<Path> candidates = new ArrayList<>();
        Optional.ofNullable(System.getenv(variable)).filter(v -> !v.isBlank()).map(Path::of).ifPresent(candidates::add);
        Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            .filter(entry -> !entry.isBlank())
            .map(entry -> Path.of(entry, name))
            .forEach(candidates::add);
        candidates.addAll(otherPlaces);
        return candidates.stream()
            .filter(Files::isExecutable)
            .findFirst()
            .map(path -> new ExternalTool(name, path))
            .orElseThrow(() -> new AssertionError(name + " is not installed (looked at $" + variable + ", the PATH and "
                    + otherPlaces + "): " + install));
    }

    /**
     * Runs the tool to its end (at most 2 minutes).
     * @param directory its working directory
     * @param arguments its arguments
     * @return its exit status and its output (stdout and stderr together)
     * @throws IOException when it cannot be started
     * @throws InterruptedException when the wait is interrupted
     */
    public Run run(Path directory, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(path.toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError(name + " " + String.join(" ", arguments) + " did not end within 2 minutes");
        }
        return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}
