package io.varpulis.bruteforce;

import io.varpulis.pipeline.BuiltInProcessorTypes;
import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.ProcessorType;
import org.springframework.boot.convert.DurationStyle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Year;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.Set;

/**
 * The processor types of the brute-force detection job (SPEC section 7):
 * <ul>
 * <li>{@code sshd-parse}: raw sshd lines ({@code SshLogLine}) to {@code SshAuthFailure}
 * events; settings {@code year} (of RFC 3164 timestamps; default: the current year, UTC)
 * and {@code zone} (of RFC 3164 timestamps, a {@link ZoneId} such as {@code UTC},
 * {@code +02:00} or {@code Europe/Paris}; default {@code UTC}) and {@code emit} (what a
 * batch of lines, {@code SshLogLines}, gives: {@code batches}, one
 * {@code SshAuthFailures} batch, or {@code events}, one event per failure; by default
 * {@code events} when a pipeline it routes to is partitioned, which needs one event per
 * message, else {@code batches});</li>
 * <li>{@code brute-force}: one {@code BruteForceSuspected} per source IP and tumbling
 * window when the failures reach the threshold; settings {@code threshold} (default 5)
 * and {@code window} (default 5m);</li>
 * <li>{@code alert-file}: appends each alert as one JSON line to setting {@code path},
 * never twice; {@code path} is relative to the node's alert directory
 * ({@link BruteForceProperties#getAlertDir()}) and never leaves it.</li>
 * </ul>
 */
public final class SshProcessorTypes {

    private SshProcessorTypes() {
    }

    /**
     * @return {@code sshd-parse}, settings {@code year}, {@code zone} and {@code emit}
     */
    public static ProcessorType sshdParse() {
        return BuiltInProcessorTypes.simple("sshd-parse", Set.of("year", "zone", "emit"),
                (group, pipeline) -> new SshLogIngressProcessor(year(pipeline), zone(pipeline), emit(group, pipeline)));
    }

    /**
     * @return {@code brute-force}, settings {@code threshold} and {@code window}
     */
    public static ProcessorType bruteForce() {
        return BuiltInProcessorTypes.simple("brute-force", Set.of("threshold", "window"),
                (group, pipeline) -> new BruteForceDetector(threshold(pipeline), window(pipeline)));
    }

    /**
     * {@code alert-file}, setting {@code path}: a file name relative to {@code directory}
     * (subdirectories allowed). An absolute path or one with {@code ..} out of the
     * directory is refused when the group is declared; a symbolic link out of it when the
     * pipeline is deployed (review finding 6: whoever may declare a group must not write
     * anywhere else on a worker's host).
     * @param directory the only directory the type writes in, created when absent;
     * relative to the working directory when relative
     * @return the type
     */
    public static ProcessorType alertFile(Path directory) {
        Path root = directory.toAbsolutePath().normalize();
        return new ProcessorType() {
            @Override
            public String name() {
                return "alert-file";
            }

            @Override
            public Optional<Set<String>> settings() {
                return Optional.of(Set.of("path"));
            }

            @Override
            public void validate(PipelineGroupSpec.PipelineSpec pipeline) {
                alertPath(root, pipeline);
            }

            @Override
            public EventProcessor create(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline) {
                return new AlertSinkProcessor(confined(root, alertPath(root, pipeline), pipeline));
            }
        };
    }

    /**
     * The file {@code path} names in {@code root}, checked by its text alone (the same on
     * every node).
     */
    private static Path alertPath(Path root, PipelineGroupSpec.PipelineSpec pipeline) {
        String path = required(pipeline, "path");
        Path relative;
        try {
            relative = Path.of(path);
        }
        catch (InvalidPathException e) {
            throw new IllegalArgumentException(
                    "pipeline " + pipeline.name() + ": settings.path '" + path + "' is not a path", e);
        }
        Path file = root.resolve(relative).normalize();
        if (relative.isAbsolute() || !file.startsWith(root) || file.equals(root)) {
            throw new IllegalArgumentException("pipeline " + pipeline.name() + ": settings.path '" + path
                    + "' must be a file name relative to the alert directory (varpulis.demo.processors.alert-dir), "
                    + "such as alerts.jsonl, without ..");
        }
        return file;
    }

    /**
     * Creates the file's directories and checks no symbolic link leads them out of
     * {@code root}.
     */
    private static Path confined(Path root, Path file, PipelineGroupSpec.PipelineSpec pipeline) {
        try {
            Files.createDirectories(file.getParent());
            if (!file.getParent().toRealPath().startsWith(root.toRealPath())) {
                throw new IllegalArgumentException("pipeline " + pipeline.name() + ": settings.path leads out of "
                        + "the alert directory " + root + " through a symbolic link");
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("pipeline " + pipeline.name() + ": cannot create the directory of " + file,
                    e);
        }
        return file;
    }

    private static int year(PipelineGroupSpec.PipelineSpec pipeline) {
        String year = pipeline.processor().text("year");
        return year == null ? Year.now(ZoneOffset.UTC).getValue() : integer(pipeline, "year", year);
    }

    private static ZoneId zone(PipelineGroupSpec.PipelineSpec pipeline) {
        String zone = pipeline.processor().text("zone");
        try {
            return zone == null ? ZoneOffset.UTC : ZoneId.of(zone);
        }
        catch (DateTimeException e) {
            throw new IllegalArgumentException("pipeline " + pipeline.name() + ": settings.zone '" + zone
                    + "' is not a time zone (e.g. UTC, +02:00, Europe/Paris)", e);
        }
    }

    /**
     * {@code emit}, by default {@code events} when a pipeline this one routes to is
     * partitioned (it needs one event per message, SPEC section 11), {@code batches}
     * otherwise.
     */
    private static SshLogIngressProcessor.Emit emit(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline) {
        String emit = pipeline.processor().text("emit");
        if (emit == null) {
            boolean partitionedDownstream = group.routes()
                .stream()
                .filter(route -> route.fromPipeline().equals(pipeline.name()))
                .anyMatch(route -> group.pipelines()
                    .stream()
                    .anyMatch(p -> p.name().equals(route.toPipeline()) && p.replicas() != null && p.replicas() > 1));
            return partitionedDownstream ? SshLogIngressProcessor.Emit.EVENTS : SshLogIngressProcessor.Emit.BATCHES;
        }
        return switch (emit) {
            case "batches" -> SshLogIngressProcessor.Emit.BATCHES;
            case "events" -> SshLogIngressProcessor.Emit.EVENTS;
            default -> throw new IllegalArgumentException("pipeline " + pipeline.name() + ": settings.emit '" + emit
                    + "' must be batches (one SshAuthFailures per batch of lines) or events (one SshAuthFailure per "
                    + "failure, for a detector partitioned by src_ip)");
        };
    }

    private static int threshold(PipelineGroupSpec.PipelineSpec pipeline) {
        String threshold = pipeline.processor().text("threshold");
        return threshold == null ? BruteForceDetector.DEFAULT_THRESHOLD : integer(pipeline, "threshold", threshold);
    }

    private static Duration window(PipelineGroupSpec.PipelineSpec pipeline) {
        String window = pipeline.processor().text("window");
        try {
            return window == null ? BruteForceDetector.DEFAULT_WINDOW : DurationStyle.detectAndParse(window);
        }
        catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("pipeline " + pipeline.name() + ": settings.window '" + window
                    + "' is not a duration (e.g. 5m, 300s)", e);
        }
    }

    private static int integer(PipelineGroupSpec.PipelineSpec pipeline, String key, String value) {
        try {
            return Integer.parseInt(value);
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "pipeline " + pipeline.name() + ": settings." + key + " '" + value + "' is not a whole number", e);
        }
    }

    private static String required(PipelineGroupSpec.PipelineSpec pipeline, String key) {
        String value = pipeline.processor().text(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("pipeline " + pipeline.name() + " needs settings." + key);
        }
        return value;
    }

}
