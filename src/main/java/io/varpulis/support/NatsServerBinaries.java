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
 * Finds the {@code nats-server} binary that the demo and the test suite start: the one
 * {@value #VARIABLE} names (environment variable, or system property of the same name),
 * else {@code nats-server} on PATH or in {@code /usr/sbin}, {@code /usr/local/bin},
 * {@code /opt/homebrew/bin}, else the newest build that
 * {@code scripts/install-nats-server.sh} left in {@code ~/.cache/varpulis/nats-server}
 * ({@code VARPULIS_NATS_CACHE}, or {@code $XDG_CACHE_HOME/varpulis/nats-server}, as the
 * script). The demo asks {@link #findPreferring} the production line's build first.
 */
public final class NatsServerBinaries {

    /** Names the nats-server binary to run. */
    public static final String VARIABLE = "VARPULIS_NATS_SERVER";

    // /usr/sbin is where Debian puts nats-server but is often missing from a non-root
    // PATH;
    // /opt/homebrew/bin is Homebrew on Apple silicon.
    private static final List<String> USUAL_DIRS = List.of("/usr/sbin", "/usr/local/bin", "/opt/homebrew/bin");

    private NatsServerBinaries() {
    }

    /**
     * @return the binary, or empty when none is installed
     * @throws IllegalStateException when {@value #VARIABLE} names a file that is not
     * executable (never a quiet fallback to another version)
     */
    public static Optional<Path> find() {
        String named = named();
        if (named != null) {
            Path binary = Path.of(named.trim());
            if (!Files.isExecutable(binary)) {
                throw new IllegalStateException(VARIABLE + "=" + named + " is not an executable nats-server; "
                        + "install one with scripts/install-nats-server.sh or unset it to use the one on PATH");
            }
            return Optional.of(binary);
        }
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        return Stream
            .concat(Stream.concat(Stream.of(path.split(File.pathSeparator)), USUAL_DIRS.stream())
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, "nats-server")), installedBuilds())
            .filter(Files::isExecutable)
            .findFirst();
    }

    /**
     * As {@link #find()}, but a build of {@code line} that
     * {@code scripts/install-nats-server.sh} left in the cache comes before anything on
     * PATH: the demo runs on the release production runs when the script built it (the
     * README's first command builds it, then runs the demo), even where an older package
     * is on PATH. The tests start their servers by {@link #find()}'s order (PATH by
     * default), CI naming the binary of each pass; those that run the demo without
     * {@code --nats-url} get its choice.
     * @param line a release line, such as {@code 2.12}
     * @return the binary, or empty when none is installed
     * @throws IllegalStateException when {@value #VARIABLE} names a file that is not
     * executable
     */
    public static Optional<Path> findPreferring(String line) {
        if (named() != null) {
            return find();
        }
        return built(line, cache()).or(NatsServerBinaries::find);
    }

    /**
     * {@value #VARIABLE}, the system property before the environment variable, each only
     * when not blank.
     */
    private static String named() {
        for (String value : new String[] { System.getProperty(VARIABLE), System.getenv(VARIABLE) }) {
            if (value != null && !value.isBlank()) {
                return value;
            }
        }
        return null;
    }

    /**
     * @param line a release line, such as {@code 2.12}
     * @param cache where scripts/install-nats-server.sh builds
     * ({@code <cache>/v2.12.15/nats-server})
     * @return the newest executable build of that line there
     */
    static Optional<Path> built(String line, Path cache) {
        return installedBuilds(cache)
            .filter(p -> p.getParent().getFileName().toString().replaceFirst("^v", "").startsWith(line + "."))
            .filter(Files::isExecutable)
            .findFirst();
    }

    /**
     * Where scripts/install-nats-server.sh builds: {@code VARPULIS_NATS_CACHE}, else
     * {@code $XDG_CACHE_HOME/varpulis/nats-server}, else
     * {@code ~/.cache/varpulis/nats-server}.
     */
    private static Path cache() {
        String configured = System.getenv("VARPULIS_NATS_CACHE");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        return (xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache"))
            .resolve("varpulis")
            .resolve("nats-server");
    }

    /** What scripts/install-nats-server.sh built, newest version first. */
    private static Stream<Path> installedBuilds() {
        return installedBuilds(cache());
    }

    private static Stream<Path> installedBuilds(Path cache) {
        if (!Files.isDirectory(cache)) {
            return Stream.empty();
        }
        try (Stream<Path> versions = Files.list(cache)) {
            return versions.map(v -> v.resolve("nats-server"))
                .sorted(Comparator.comparing((Path p) -> versionKey(p.getParent().getFileName().toString())).reversed())
                .toList()
                .stream();
        }
        catch (IOException e) {
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
