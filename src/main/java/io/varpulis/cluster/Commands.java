package io.varpulis.cluster;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.varpulis.pipeline.PipelineGroupSpec;

import java.util.Map;

/**
 * The command payloads on {@code varpulis.cluster.cmd.{worker}.{command}}, core request/reply (SPEC section 6).
 * Replies are JSON objects; a refused command replies {@code {"error":"..."}}.
 */
public final class Commands {

    /** Deploy one pipeline of a group. */
    public static final String DEPLOY = "deploy";
    /** Stop one pipeline. */
    public static final String UNDEPLOY = "undeploy";
    /** Publish an event into a pipeline's {@code _external} edge. */
    public static final String INJECT = "inject";
    /** Stop every pipeline of the worker. */
    public static final String DRAIN = "drain";
    /** Ask the worker to register again (the coordinator restarted and no longer knows it). */
    public static final String REGISTER = "register";

    private Commands() {
    }

    /**
     * {@code {"group": {...group spec...}, "pipeline": "detect"}}.
     *
     * @param group    the whole group, so the worker knows the pipeline's routes
     * @param pipeline the pipeline to run
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Deploy(@JsonProperty("group") PipelineGroupSpec group, @JsonProperty("pipeline") String pipeline) {
    }

    /**
     * {@code {"group": "ssh-bruteforce", "pipeline": "detect"}}.
     *
     * @param group    the group name
     * @param pipeline the pipeline name
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Undeploy(@JsonProperty("group") String group, @JsonProperty("pipeline") String pipeline) {
    }

    /**
     * {@code {"pipeline_id": "ssh-bruteforce/ingress", "event_type": "SshLogLine", "fields": {...}}}.
     *
     * @param pipelineId {@code {group}/{pipeline}}
     * @param eventType  the event type
     * @param fields     the event fields
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Inject(@JsonProperty("pipeline_id") String pipelineId,
                         @JsonProperty("event_type") String eventType,
                         @JsonProperty("fields") Map<String, Object> fields) {
    }
}
