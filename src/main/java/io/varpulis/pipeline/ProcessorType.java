package io.varpulis.pipeline;

import java.util.Optional;
import java.util.Set;

/**
 * A kind of processor a pipeline spec can name ({@code "processor": {"type": "<name>",
 * "settings": {...}}}). Register more as Spring beans; the {@link ProcessorRegistry}
 * collects them.
 */
public interface ProcessorType {

    /**
     * @return the type name used in pipeline specs
     */
    String name();

    /**
     * Creates the processor of one deployed pipeline.
     * @param group the group being deployed
     * @param pipeline the pipeline
     * @return the processor
     * @throws IllegalArgumentException when the settings are invalid, naming the setting
     */
    EventProcessor create(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline);

    /**
     * The setting names this type reads, so that a misspelled one ({@code "treshold"}) is
     * refused when the group is declared instead of running with the default.
     * @return the names, or empty when the type does not say (then any setting is
     * accepted, as before)
     */
    default Optional<Set<String>> settings() {
        return Optional.empty();
    }

    /**
     * Checks the settings without creating anything, when a group is declared (defaults
     * to nothing).
     * @param pipeline the pipeline
     * @throws IllegalArgumentException when the settings are invalid
     */
    default void validate(PipelineGroupSpec.PipelineSpec pipeline) {
    }

}
