package io.varpulis.bruteforce;

import io.varpulis.pipeline.EventProcessor;
import io.varpulis.pipeline.InMemoryKeyValueState;
import io.varpulis.pipeline.PipelineGroupSpec.PipelineSpec;
import io.varpulis.pipeline.PipelineGroupSpec.ProcessorSpec;
import io.varpulis.pipeline.PipelineGroupSpec.RouteSpec;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.ProcessorType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code alert-file} type writes only in its alert directory (review finding 6):
 * whoever may declare a group cannot name a file anywhere else on a worker's host, by an
 * absolute path, by {@code ..} or through a symbolic link.
 */
class AlertFileTypeTest {

    @TempDir
    Path tmp;

    private static PipelineSpec alerts(String path) {
        return new PipelineSpec("alerts", new ProcessorSpec("alert-file", Map.of("path", path)));
    }

    private static PipelineGroupSpec group(PipelineSpec pipeline) {
        return new PipelineGroupSpec("g", List.of(pipeline),
                List.of(new RouteSpec("_external", "alerts", List.of(SshEvents.BRUTE_FORCE_SUSPECTED))));
    }

    @Test
    void aRelativePathIsWrittenInTheAlertDirectory_subdirectoriesCreated() throws Exception {
        Path dir = tmp.resolve("alerts");
        ProcessorType type = SshProcessorTypes.alertFile(dir);
        PipelineSpec pipeline = alerts("ssh/alerts.jsonl");

        type.validate(pipeline);
        EventProcessor sink = type.create(group(pipeline), pipeline);
        sink.process(new BruteForceAlert("5.36.59.76", Instant.parse("2026-12-10T07:10:00Z"), 6).toEvent(),
                TestContext.first("alert:x", new InMemoryKeyValueState()));

        assertThat(Files.readAllLines(dir.resolve("ssh/alerts.jsonl")))
            .containsExactly("{\"src_ip\":\"5.36.59.76\",\"window_start\":\"2026-12-10T07:10:00Z\",\"failures\":6}");
    }

    @Test
    void anAbsolutePathOrOneLeavingTheDirectoryIsRefusedWhenTheGroupIsDeclared_andNothingIsCreated() {
        ProcessorType type = SshProcessorTypes.alertFile(tmp.resolve("alerts"));

        for (String path : List.of(tmp.resolve("alerts/alerts.jsonl").toString(), "/etc/cron.d/x", "../x.jsonl",
                "ssh/../../x.jsonl", ".", "ssh/..")) {
            assertThatThrownBy(() -> type.validate(alerts(path))).as(path)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("settings.path '" + path + "' must be a file name relative to the alert "
                        + "directory (varpulis.demo.processors.alert-dir)");
            assertThatThrownBy(() -> type.create(group(alerts(path)), alerts(path))).as(path)
                .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(tmp.resolve("alerts")).doesNotExist();
        assertThat(tmp.resolve("x.jsonl")).doesNotExist();
    }

    @Test
    void aSymbolicLinkOutOfTheDirectoryIsRefusedWhenThePipelineIsDeployed() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("alerts"));
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.createSymbolicLink(dir.resolve("out"), outside);
        ProcessorType type = SshProcessorTypes.alertFile(dir);
        PipelineSpec pipeline = alerts("out/alerts.jsonl");

        assertThatThrownBy(() -> type.create(group(pipeline), pipeline)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("leads out of the alert directory " + dir + " through a symbolic link");
        assertThat(outside).isEmptyDirectory();
    }

    @Test
    void aSymbolicLinkAsTheFileIsRefused_itsTargetUntouched() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("alerts"));
        Path target = Files.writeString(tmp.resolve("precious.txt"), "not yours\nno newline");
        Files.createSymbolicLink(dir.resolve("alerts.jsonl"), target);
        ProcessorType type = SshProcessorTypes.alertFile(dir);
        PipelineSpec pipeline = alerts("alerts.jsonl");

        assertThatThrownBy(() -> type.create(group(pipeline), pipeline)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("is not a regular file");
        assertThat(target).hasContent("not yours\nno newline");
    }

}
