package io.varpulis.cluster.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.pipeline.EventCodec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, item 4, without a broker: a worker's answers to the commands of a Rust
 * Varpulis 0.11 coordinator.
 */
class ForeignCommandsTest {

    /** The nodes' own mapper (trailing tokens refused, as in the application). */
    private final ObjectMapper json = new EventCodec().mapper();

    @Test
    void aRustDeployOfAVplProgramIsAnsweredWithTheDifference() throws Exception {
        JsonNode deploy = json.readTree("{\"name\":\"p1\",\"source\":\"stream A = Sensor .where(t > 100)\"}");

        assertThat(ForeignCommands.refusal(Commands.DEPLOY, deploy, List.of("passthrough", "filter")).orElseThrow())
            .startsWith("deploy of a VPL program (pipeline p1): this worker runs processor types "
                    + "[filter, passthrough]");
        assertThat(ForeignCommands.refusal(Commands.UNDEPLOY, json.readTree("{\"pipeline_id\":\"abc\"}"), List.of())
            .orElseThrow()).contains("undeploy of pipeline id abc", "no VPL pipelines");
        assertThat(
                ForeignCommands.refusal(Commands.DEPLOY, json.readTree("{\"group\":{},\"pipeline\":\"a\"}"), List.of()))
            .as("ours goes on to the fence and the deploy")
            .isEmpty();
    }

    /**
     * The Rust coordinator reads a deploy's or checkpoint's reply into a struct and logs
     * only its reading's error: a string is quoted there, an object's missing fields are
     * not. The others it reads as any JSON.
     */
    @Test
    void refusalsAreWrittenInTheShapeWhoseReadingTheRustCoordinatorLogs() throws Exception {
        JsonNode deploy = json.valueToTree(ForeignCommands.reply(Commands.DEPLOY, "deploy of a VPL program"));
        JsonNode checkpoint = json
            .valueToTree(ForeignCommands.reply("checkpoint", ForeignCommands.unknown("checkpoint")));
        JsonNode restore = json.valueToTree(ForeignCommands.reply("restore", ForeignCommands.unknown("restore")));

        assertThat(deploy.isTextual()).isTrue();
        assertThat(deploy.asText()).isEqualTo("refused: deploy of a VPL program");
        assertThat(checkpoint.asText()).startsWith("refused: unknown command: checkpoint; this worker supports");
        assertThat(restore.path("error").asText()).startsWith("unknown command: restore; this worker supports");
    }

    @Test
    void unknownCommandsAreAnsweredInTheRustWordsWithTheSupportedList() {
        for (String command : List.of("inject_batch", "checkpoint", "restore")) {
            assertThat(ForeignCommands.unknown(command)).isEqualTo(
                    "unknown command: " + command + "; this worker supports deploy, undeploy, inject, drain, register");
        }
    }

}
