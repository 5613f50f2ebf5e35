package io.varpulis.demo;

import io.varpulis.pipeline.BuiltInProcessorTypes;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.ProcessorType;
import org.springframework.boot.convert.DurationStyle;

import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Year;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The processor types of the brute-force detection job (SPEC section 7):
 * <ul>
 * <li>{@code sshd-parse}: raw sshd lines ({@code SshLogLine}) to {@code SshAuthFailure} events; settings
 * {@code year} (of RFC 3164 timestamps; default: the current year, UTC) and {@code zone} (of RFC 3164 timestamps, a
 * {@link ZoneId} such as {@code UTC}, {@code +02:00} or {@code Europe/Paris}; default {@code UTC});</li>
 * <li>{@code brute-force}: one {@code BruteForceSuspected} per source IP and tumbling window when the failures reach
 * the threshold; settings {@code threshold} (default 5) and {@code window} (default 5m);</li>
 * <li>{@code alert-file}: appends each alert as one JSON line to setting {@code path}, never twice.</li>
 * </ul>
 */
public final class SshProcessorTypes {

    private SshProcessorTypes() {
    }

    /**
     * @return {@code sshd-parse}, settings {@code year} and {@code zone}
     */
    public static ProcessorType sshdParse() {
        return BuiltInProcessorTypes.simple("sshd-parse", (group, pipeline) ->
                new SshLogIngressProcessor(year(pipeline), zone(pipeline)));
    }

    /**
     * @return {@code brute-force}, settings {@code threshold} and {@code window}
     */
    public static ProcessorType bruteForce() {
        return BuiltInProcessorTypes.simple("brute-force", (group, pipeline) ->
                new BruteForceDetector(threshold(pipeline), window(pipeline)));
    }

    /**
     * @return {@code alert-file}, setting {@code path}
     */
    public static ProcessorType alertFile() {
        return BuiltInProcessorTypes.simple("alert-file", (group, pipeline) ->
                new AlertSinkProcessor(Path.of(required(pipeline, "path"))));
    }

    private static int year(PipelineGroupSpec.PipelineSpec pipeline) {
        String year = pipeline.processor().text("year");
        return year == null ? Year.now(ZoneOffset.UTC).getValue() : integer(pipeline, "year", year);
    }

    private static ZoneId zone(PipelineGroupSpec.PipelineSpec pipeline) {
        String zone = pipeline.processor().text("zone");
        try {
            return zone == null ? ZoneOffset.UTC : ZoneId.of(zone);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("pipeline " + pipeline.name() + ": settings.zone '" + zone
                    + "' is not a time zone (e.g. UTC, +02:00, Europe/Paris)", e);
        }
    }

    private static int threshold(PipelineGroupSpec.PipelineSpec pipeline) {
        String threshold = pipeline.processor().text("threshold");
        return threshold == null ? BruteForceDetector.DEFAULT_THRESHOLD : integer(pipeline, "threshold", threshold);
    }

    private static Duration window(PipelineGroupSpec.PipelineSpec pipeline) {
        String window = pipeline.processor().text("window");
        try {
            return window == null ? BruteForceDetector.DEFAULT_WINDOW : DurationStyle.detectAndParse(window);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("pipeline " + pipeline.name() + ": settings.window '" + window
                    + "' is not a duration (e.g. 5m, 300s)", e);
        }
    }

    private static int integer(PipelineGroupSpec.PipelineSpec pipeline, String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("pipeline " + pipeline.name() + ": settings." + key + " '" + value
                    + "' is not a whole number", e);
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
