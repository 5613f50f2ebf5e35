package io.varpulis.pipeline;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * The processor types a node knows, by name.
 */
public class ProcessorRegistry {

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
     *
     * @param group the group
     * @throws IllegalArgumentException naming the pipeline, the unknown type and the known ones
     */
    public void validate(PipelineGroupSpec group) {
        group.pipelines().forEach(p -> type(p).validate(p));
    }

    /**
     * @param group    the group
     * @param pipeline the pipeline
     * @return a new processor for it
     * @throws IllegalArgumentException when the type is unknown or its settings are invalid
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
                    + pipeline.processor().type() + "'; known types: " + String.join(", ", types.keySet()));
        }
        return type;
    }
}
