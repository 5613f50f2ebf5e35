package io.varpulis.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run that stops before its report after the servers lost data (issue 43: a power loss
 * can leave them unable to take the job's messages) still names the losses in its
 * summary.
 */
class FailedSummaryTest {

    @Test
    void aRunStoppedAfterALossNamesItInItsSummary(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("summary.json");

        Report.Summary
            .failed(null, "publish not confirmed",
                    List.of("demo: stream VARPULIS_ROUTING is gone from the servers", "worker-1: consumer gone"))
            .write(file);

        JsonNode summary = new ObjectMapper().readTree(file.toFile());
        assertThat(summary.path("result").asText()).isEqualTo("FAILED");
        assertThat(summary.path("losses")).hasSize(2);
        assertThat(summary.path("problems")).hasSize(2);
        assertThat(summary.path("problems").get(1).asText())
            .startsWith("the NATS servers lost acknowledged data (2 findings")
            .contains("VARPULIS_ROUTING is gone");
    }

    @Test
    void aRunStoppedWithoutLossHasNone(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("summary.json");

        Report.Summary.failed(null, "no server").write(file);

        JsonNode summary = new ObjectMapper().readTree(file.toFile());
        assertThat(summary.has("losses")).isFalse();
        assertThat(summary.path("problems")).hasSize(1);
    }

}
