package io.varpulis.pipeline;

/**
 * A kind of processor a pipeline spec can name ({@code "processor": {"type": "<name>", "settings": {...}}}).
 * Register more as Spring beans; the {@link ProcessorRegistry} collects them.
 */
public interface ProcessorType {

    /**
     * @return the type name used in pipeline specs
     */
    String name();

    /**
     * Creates the processor of one deployed pipeline.
     *
     * @param group    the group being deployed
     * @param pipeline the pipeline
     * @return the processor
     * @throws IllegalArgumentException when the settings are invalid, naming the setting
     */
    EventProcessor create(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline);

    /**
     * Checks the settings without creating anything, when a group is declared (defaults to nothing).
     *
     * @param pipeline the pipeline
     * @throws IllegalArgumentException when the settings are invalid
     */
    default void validate(PipelineGroupSpec.PipelineSpec pipeline) {
    }
}
