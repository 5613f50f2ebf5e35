package io.varpulis.pipeline;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The processor types a node knows, by name.
 */
public class ProcessorRegistry {

    /**
     * The main job's types (the demo package), registered only when enabled: named in the
     * unknown-type error.
     */
    private static final Set<String> MAIN_JOB_TYPES = Set.of("sshd-parse", "brute-force", "alert-file");

    private final Map<String, ProcessorType> types = new TreeMap<>();

    /**
     * @param types the known types
     * @throws IllegalArgumentException when two types share a name
     */
    public ProcessorRegistry(Collection<? extends ProcessorType> types) {
        for (ProcessorType type : types) {
            if (this.types.putIfAbsent(type.name(), type) != null) {
                throw new IllegalArgumentException("two processor types are named " + type.name());
            }
        }
    }

    /**
     * Checks every pipeline of a group names a known type with valid settings.
     * @param group the group
     * @throws IllegalArgumentException naming the pipeline, the unknown type and the
     * known ones
     */
    public void validate(PipelineGroupSpec group) {
        group.pipelines().forEach(p -> {
            ProcessorType type = type(p);
            type.settings()
                .ifPresent(known -> p.processor()
                    .settings()
                    .keySet()
                    .stream()
                    .filter(name -> !known.contains(name))
                    .sorted()
                    .findFirst()
                    .ifPresent(name -> {
                        throw new IllegalArgumentException("pipeline " + p.name() + ": processor type '" + type.name()
                                + "' has no setting '" + name + "'; " + (known.isEmpty() ? "it takes none"
                                        : "its settings: " + String.join(", ", new TreeSet<>(known))));
                    }));
            type.validate(p);
        });
    }

    /**
     * @param group the group
     * @param pipeline the pipeline
     * @return a new processor for it
     * @throws IllegalArgumentException when the type is unknown or its settings are
     * invalid
     */
    public EventProcessor create(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline) {
        return type(pipeline).create(group, pipeline);
    }

    /**
     * @return the known type names
     */
    public Collection<String> names() {
        return types.keySet();
    }

    private ProcessorType type(PipelineGroupSpec.PipelineSpec pipeline) {
        ProcessorType type = types.get(pipeline.processor().type());
        if (type == null) {
            throw new IllegalArgumentException("pipeline " + pipeline.name() + " names unknown processor type '"
                    + pipeline.processor().type() + "'; known types: " + String.join(", ", types.keySet())
                    + (MAIN_JOB_TYPES.contains(pipeline.processor().type()) ? " (the main job's sshd-parse, "
                            + "brute-force and alert-file are opt-in: varpulis.demo.processors.enabled=true on the nodes)"
                            : ""));
        }
        return type;
    }

}
