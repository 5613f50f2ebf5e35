package io.varpulis.cluster;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A Rust Varpulis coordinator's commands to one of our workers (SPEC section 17), answered in its error shape
 * {@code {"error":"..."}} with what differs, instead of a fencing refusal that says nothing of it. The Rust deploy is
 * {@code {"name","source"}} (a VPL program), its undeploy {@code {"pipeline_id"}}; our worker runs processor types
 * from a pipeline group. Its {@code inject} has our shape and is served as ours.
 */
final class ForeignCommands {

    /** The commands this worker serves, in the order its unknown-command error lists them. */
    static final List<String> SUPPORTED = List.of(Commands.DEPLOY, Commands.UNDEPLOY, Commands.INJECT,
            Commands.DRAIN, Commands.REGISTER);

    private ForeignCommands() {
    }

    /**
     * @param command        the command name, from the subject
     * @param body           its JSON, or {@code null}
     * @param processorTypes the processor types this worker runs
     * @return the error for a command in the Rust node's shape, empty for one in ours
     */
    static Optional<String> refusal(String command, JsonNode body, Collection<String> processorTypes) {
        if (body == null || !body.isObject()) {
            return Optional.empty();
        }
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
     * @param command a command this worker does not serve ({@code inject_batch}, {@code checkpoint},
     *                {@code restore}, ...)
     * @return the error, in the Rust node's words followed by the commands this worker serves
     */
    static String unknown(String command) {
        return "unknown command: " + command + "; this worker supports " + String.join(", ", SUPPORTED);
    }
}
