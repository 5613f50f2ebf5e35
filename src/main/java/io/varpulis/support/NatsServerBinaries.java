package io.varpulis.support;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds the {@code nats-server} binary that the demo and the test suite start: the one {@value #VARIABLE} names
 * (environment variable, or system property of the same name), else {@code nats-server} on PATH or in
 * {@code /usr/sbin}, {@code /usr/local/bin}, {@code /opt/homebrew/bin}, else the newest build that
 * {@code scripts/install-nats-server.sh} left in {@code ~/.cache/varpulis/nats-server} ({@code VARPULIS_NATS_CACHE}).
 */
public final class NatsServerBinaries {

    /** Names the nats-server binary to run. */
    public static final String VARIABLE = "VARPULIS_NATS_SERVER";

    // /usr/sbin is where Debian puts nats-server but is often missing from a non-root PATH;
    // /opt/homebrew/bin is Homebrew on Apple silicon.
    private static final List<String> USUAL_DIRS = List.of("/usr/sbin", "/usr/local/bin", "/opt/homebrew/bin");

    private NatsServerBinaries() {
    }

    /**
     * @return the binary, or empty when none is installed
     * @throws IllegalStateException when {@value #VARIABLE} names a file that is not executable (never a quiet
     *                               fallback to another version)
     */
    public static Optional<Path> find() {
        String named = Optional.ofNullable(System.getProperty(VARIABLE)).orElse(System.getenv(VARIABLE));
        if (named != null && !named.isBlank()) {
            Path binary = Path.of(named.trim());
            if (!Files.isExecutable(binary)) {
                throw new IllegalStateException(VARIABLE + "=" + named + " is not an executable nats-server; "
                        + "install one with scripts/install-nats-server.sh or unset it to use the one on PATH");
            }
            return Optional.of(binary);
        }
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        return Stream.concat(Stream.concat(Stream.of(path.split(File.pathSeparator)), USUAL_DIRS.stream())
                                .filter(dir -> !dir.isBlank()).map(dir -> Path.of(dir, "nats-server")),
                        installedBuilds())
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** What scripts/install-nats-server.sh built, newest version first. */
    private static Stream<Path> installedBuilds() {
        String configured = System.getenv("VARPULIS_NATS_CACHE");
        Path cache = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "varpulis", "nats-server");
        if (!Files.isDirectory(cache)) {
            return Stream.empty();
        }
        try (Stream<Path> versions = Files.list(cache)) {
            return versions.map(v -> v.resolve("nats-server"))
                    .sorted(Comparator.comparing((Path p) -> versionKey(p.getParent().getFileName().toString()))
                            .reversed())
                    .toList().stream();
        } catch (IOException e) {
            return Stream.empty();
        }
    }

    /** {@code v2.12.15} as a key that sorts like the version. */
    private static String versionKey(String version) {
        StringBuilder key = new StringBuilder();
        for (String part : version.replaceFirst("^v", "").split("[.-]")) {
            key.append(part.matches("\\d+") ? String.format("%09d", Long.parseLong(part)) : part).append('.');
        }
        return key.toString();
    }
}
