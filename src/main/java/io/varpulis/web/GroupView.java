package io.varpulis.web;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.varpulis.cluster.coordinator.PipelineView;
import io.varpulis.pipeline.PipelineGroupSpec;

import java.time.Instant;
import java.util.Map;

/**
 * A pipeline group as the operator API shows it: {@code {"group": {...}, "placement":
 * {"<pipeline>": "<worker>"}, "pipelines": {"<pipeline>": {"state": ..., ...}},
 * "adopting_until": "..."}}.
 *
 * @param group the group as declared (SPEC section 6)
 * @param placement where each running pipeline runs, pipeline to worker id
 * @param pipelines each pipeline's state ({@code running}, {@code deploying},
 * {@code unplaced}) and epoch
 * @param adoptingUntil after a coordinator restart, until when it adopts what the workers
 * still run; absent otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GroupView(@JsonProperty("group") PipelineGroupSpec group,
        @JsonProperty("placement") Map<String, String> placement,
        @JsonProperty("pipelines") Map<String, PipelineView> pipelines,
        @JsonProperty("adopting_until") Instant adoptingUntil) {
}
