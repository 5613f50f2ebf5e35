package io.varpulis.cluster.protocol;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.varpulis.pipeline.PipelineGroupSpec;
import io.varpulis.pipeline.PipelineUnit;

import java.util.Map;

/**
 * The command payloads on {@code varpulis.cluster.cmd.{worker}.{command}}, core
 * request/reply (SPEC section 6). Replies are JSON objects; a refused command replies
 * {@code {"error":"..."}}, except a Rust Varpulis coordinator's {@code deploy} or
 * {@code checkpoint}, refused with a bare string its log quotes (the worker's
 * {@code ForeignCommands}).
 * <p>
 * Fencing (SPEC section 9): the leader adds {@value #LEADER} (its id),
 * {@value #LEADER_EPOCH} (its epoch) and {@value #CLUSTER} (the cluster name) to every
 * command's JSON object. A worker refuses a command whose leader epoch is older than the
 * newest it has seen, or that comes from another cluster; deploy, undeploy and drain must
 * carry an epoch, inject and register may omit it (they place nothing: an operator may
 * send them by hand).
 */
public final class Commands {

    /**
     * The cluster name of nodes that set none ({@code varpulis.cluster.name}'s default),
     * and of older nodes whose registrations, heartbeats and commands carry none.
     */
    public static final String DEFAULT_CLUSTER = "varpulis";

    /** Deploy one pipeline of a group. */
    public static final String DEPLOY = "deploy";

    /** Stop one pipeline. */
    public static final String UNDEPLOY = "undeploy";

    /** Publish an event into a pipeline's {@code _external} edge. */
    public static final String INJECT = "inject";

    /** Stop every pipeline of the worker. */
    public static final String DRAIN = "drain";

    /**
     * Ask the worker to register again (the coordinator restarted and no longer knows
     * it).
     */
    public static final String REGISTER = "register";

    /** The sending leader's coordinator id, in every command. */
    public static final String LEADER = "leader";

    /** The sending leader's epoch, in every command. */
    public static final String LEADER_EPOCH = "leader_epoch";

    /** The sending leader's cluster name, in every command. */
    public static final String CLUSTER = "cluster";

    private Commands() {
    }

    /**
     * @param command a command name
     * @return whether the command changes what runs, so that it must carry the leader's
     * epoch
     */
    public static boolean isFenced(String command) {
        return DEPLOY.equals(command) || UNDEPLOY.equals(command) || DRAIN.equals(command);
    }

    /**
     * {@code {"group": {...group spec...}, "pipeline": "detect", "placement_epoch": N}},
     * with {@code "partition": K} for one partition of a partitioned pipeline (SPEC
     * section 11; left out otherwise).
     *
     * @param group the whole group, so the worker knows the pipeline's routes
     * @param pipeline the pipeline to run
     * @param placementEpoch the placement's epoch (the coordinator's {@code Placement}),
     * handed to the pipeline's state so that an older placement's writer cannot overwrite
     * it; a pipeline running with an older one is restarted with this one
     * @param partition the partition to run, {@code null} for an unpartitioned pipeline
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Deploy(@JsonProperty("group") PipelineGroupSpec group, @JsonProperty("pipeline") String pipeline,
            @JsonProperty("placement_epoch") long placementEpoch, @JsonProperty("partition") Integer partition) {
    }

    /**
     * {@code {"group": "ssh-bruteforce", "pipeline": "detect", "placement_epoch": N}},
     * with {@code "partition": K} for one partition.
     *
     * @param group the group name
     * @param pipeline the pipeline name
     * @param partition the partition to stop, {@code null} for an unpartitioned pipeline
     * @param placementEpoch the newest placement epoch this command stops: a copy the
     * worker runs with a newer one (placed there again after the command was sent) is
     * kept; {@code null} stops any copy (a removed group, an operator's command)
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Undeploy(@JsonProperty("group") String group, @JsonProperty("pipeline") String pipeline,
            @JsonProperty("partition") Integer partition, @JsonProperty("placement_epoch") Long placementEpoch) {

        /**
         * @param unit the pipeline unit (a pipeline, or one partition of one)
         * @param epoch stop copies placed up to this placement epoch; {@code null}: any
         * copy
         * @return the undeploy of that unit
         */
        public static Undeploy of(PipelineUnit unit, Long epoch) {
            return new Undeploy(unit.group(), unit.pipeline(), unit.partitionOrNull(), epoch);
        }
    }

    /**
     * {@code {"pipeline_id": "ssh-bruteforce/ingress", "event_type": "SshLogLine",
     * "fields": {...}, "id": "..."}}.
     *
     * @param pipelineId {@code {group}/{pipeline}}
     * @param eventType the event type
     * @param fields the event fields
     * @param id the injection's id (letters, digits, {@code . _ : -}), so that a retried
     * command is stored once within the routing stream's duplicate window; absent (a Rust
     * coordinator's command): a new one, and a retry is stored again
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Inject(@JsonProperty("pipeline_id") String pipelineId, @JsonProperty("event_type") String eventType,
            @JsonProperty("fields") Map<String, Object> fields, @JsonProperty("id") String id) {
    }

}
