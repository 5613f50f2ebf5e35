package io.varpulis.cluster.worker;

import com.fasterxml.jackson.databind.JsonNode;
import io.varpulis.cluster.protocol.Commands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A Rust Varpulis coordinator's commands to one of our workers (SPEC section 17), refused
 * with what differs instead of a fencing refusal that says nothing of it, in the shape
 * that puts the reason on the Rust coordinator's log ({@link #reply}). The Rust deploy is
 * {@code {"name","source"}} (a VPL program), its undeploy {@code {"pipeline_id"}}; our
 * worker runs processor types from a pipeline group. Its {@code inject} has our shape and
 * is served as ours.
 */
final class ForeignCommands {

    private static final Logger log = LoggerFactory.getLogger(ForeignCommands.class);

    /**
     * The commands this worker serves, in the order its unknown-command error lists them.
     */
    static final List<String> SUPPORTED = List.of(Commands.DEPLOY, Commands.UNDEPLOY, Commands.INJECT, Commands.DRAIN,
            Commands.REGISTER);

    /**
     * The Rust coordinator's command that reads a pipeline's state before moving it (into
     * an EngineCheckpoint).
     */
    static final String CHECKPOINT = "checkpoint";

    /**
     * How a refusal written as a bare string starts, as a refused registration's text
     * does.
     */
    static final String REFUSED = "refused: ";

    private ForeignCommands() {
    }

    /**
     * @param command the command name, from the subject
     * @param body its JSON, or {@code null}
     * @param processorTypes the processor types this worker runs
     * @return the error for a command in the Rust node's shape, empty for one in ours
     */
    static Optional<String> refusal(String command, JsonNode body, Collection<String> processorTypes) {
        Optional<String> refusal = body == null || !body.isObject() ? Optional.empty()
                : rustShaped(command, body, processorTypes);
        // Said on both sides: here, and in the Rust coordinator's log through reply().
        refusal
            .ifPresent(reason -> log.warn("refused command {} from a Rust Varpulis coordinator: {}", command, reason));
        return refusal;
    }

    private static Optional<String> rustShaped(String command, JsonNode body, Collection<String> processorTypes) {
        if (Commands.DEPLOY.equals(command) && body.has("source") && !body.has("group")) {
            return Optional.of("deploy of a VPL program (pipeline " + body.path("name").asText("?") + "): this "
                    + "worker runs processor types " + new TreeSet<>(processorTypes) + " from pipeline groups, not "
                    + "VPL; deploy VPL programs on a Rust Varpulis worker, or declare a pipeline group on this "
                    + "worker's coordinator");
        }
        if (Commands.UNDEPLOY.equals(command) && body.has("pipeline_id") && !body.has("group")) {
            return Optional.of("undeploy of pipeline id " + body.path("pipeline_id").asText() + ": this worker runs "
                    + "no VPL pipelines, only pipeline groups' processors (undeploy takes \"group\" and "
                    + "\"pipeline\")");
        }
        return Optional.empty();
    }

    /**
     * The reply to a command refused with {@code error}, in the shape whose reading the
     * Rust 0.11 coordinator logs.
     * <p>
     * Why a bare JSON string for {@code deploy} and {@code checkpoint}: the Rust
     * coordinator reads those replies into structs ({@code DeployResponse {id, name,
     * status}}, all strings; {@code EngineCheckpoint}) and logs only its reading's error.
     * An object there reads as {@code missing field `id`}, without the reason; a string
     * fails with the string quoted:
     * {@code Failed to deploy pipeline 'p1' on worker jw9: deserialization failed: invalid
     * type: string "refused: deploy of a VPL program ...", expected struct DeployResponse},
     * and the placement is recorded {@code Failed}, never running. It reads the other
     * replies as any JSON and prints {@code restore}'s and {@code inject}'s: those get
     * {@code {"error":"..."}}, the Rust worker's own error shape.
     * @param command the command refused
     * @param error why, in words with the fix
     * @return {@code "refused: <error>"} for {@code deploy} and {@code checkpoint}, else
     * {@code {"error": error}}
     */
    static Object reply(String command, String error) {
        return Commands.DEPLOY.equals(command) || CHECKPOINT.equals(command) ? REFUSED + error : Map.of("error", error);
    }

    /**
     * @param command a command this worker does not serve ({@code inject_batch},
     * {@code checkpoint}, {@code restore}, ...)
     * @return the error, in the Rust node's words followed by the commands this worker
     * serves
     */
    static String unknown(String command) {
        return "unknown command: " + command + "; this worker supports " + String.join(", ", SUPPORTED);
    }

}
