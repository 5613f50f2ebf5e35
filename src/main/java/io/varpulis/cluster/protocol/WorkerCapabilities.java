package io.varpulis.cluster.protocol;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.varpulis.pipeline.PipelineGroupSpec;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What a worker says it can run, sent in its registration (SPEC section 17):
 * {@code "capabilities": {"protocol": 1, "processor_types": ["filter", "passthrough",
 * ...]}}. A Rust Varpulis worker sends none (it runs VPL programs, not processor types):
 * it runs none of this cluster's pipelines. A worker of ours older than this field sends
 * none either, but does send {@code substrate}: it is read as {@link #OLDER_WORKER} and
 * runs what it ran before, so that a rolling upgrade does not strand it.
 *
 * @param protocol the version of the command and pipeline protocol the worker speaks: a
 * deploy of this version is one it reads ({@value #PROTOCOL} for this build)
 * @param processorTypes the processor types its registry has, sorted
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record WorkerCapabilities(@JsonProperty("protocol") int protocol,
        @JsonProperty("processor_types") List<String> processorTypes) {

    /**
     * The protocol of this build: the {@code deploy} command with a whole group spec,
     * placement epoch and partition (SPEC sections 6, 9 and 11). Raise it when a deploy
     * an older worker would misread is introduced.
     */
    public static final int PROTOCOL = 1;

    /**
     * A worker of ours from before this field: protocol 0, read as able to run every
     * processor type.
     */
    public static final WorkerCapabilities OLDER_WORKER = new WorkerCapabilities(0, List.of());

    /**
     * Sorts and copies the types (absent means none).
     */
    public WorkerCapabilities {
        processorTypes = processorTypes == null ? List.of() : List.copyOf(new TreeSet<>(processorTypes));
    }

    /**
     * @param processorTypes the processor types of this node's registry
     * @return this build's capabilities
     */
    public static WorkerCapabilities of(Collection<String> processorTypes) {
        return new WorkerCapabilities(PROTOCOL, List.copyOf(processorTypes));
    }

    /**
     * @param request a registration
     * @return what the worker can run: its capabilities, {@link #OLDER_WORKER} for a
     * worker of ours that did not say, {@code null} for a worker that is not ours (no
     * {@code substrate} either: a Rust Varpulis worker)
     */
    public static WorkerCapabilities of(Registration.Request request) {
        if (request.capabilities() != null) {
            return request.capabilities();
        }
        return request.substrate() != null ? OLDER_WORKER : null;
    }

    /**
     * @param capabilities what a worker said, {@code null} when it said nothing
     * @param pipeline a pipeline of this cluster
     * @return why that worker cannot run the pipeline, empty when it can
     */
    public static Optional<String> cannotRun(WorkerCapabilities capabilities, PipelineGroupSpec.PipelineSpec pipeline) {
        if (capabilities == null) {
            return Optional.of("it announced no capabilities (a Rust Varpulis worker runs VPL programs, not processor "
                    + "types; an older worker of ours does not say what it runs)");
        }
        if (capabilities.protocol() == OLDER_WORKER.protocol()) {
            return Optional.empty();
        }
        if (capabilities.protocol() != PROTOCOL) {
            return Optional.of("it speaks protocol " + capabilities.protocol() + ", this coordinator " + PROTOCOL
                    + ": run the same Varpulis version on both");
        }
        String type = pipeline.processor() == null ? null : pipeline.processor().type();
        if (type != null && !capabilities.processorTypes().contains(type)) {
            return Optional.of("it has no processor type " + type + " (it has " + capabilities.processorTypes()
                    + "): register that type on the worker");
        }
        return Optional.empty();
    }
}
