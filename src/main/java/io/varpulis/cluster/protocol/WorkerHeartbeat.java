package io.varpulis.cluster.protocol;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.varpulis.pipeline.Partitioning;
import io.varpulis.pipeline.PipelineUnit;

import java.util.Map;

import java.util.List;

/**
 * A worker's heartbeat (SPEC section 5), published every heartbeat-interval on
 * {@code varpulis.cluster.heartbeat.{worker}}:
 * {@code {"events_processed": N, "pipelines_running": N, "pipeline_metrics":
 * [{"pipeline_name": "...", "events_in": N, "events_out": N}]}}; a partition of a
 * partitioned pipeline is one entry of its own, with {@code "partition": K} (SPEC section
 * 11).
 *
 * @param eventsProcessed events the worker applied since it started
 * @param pipelinesRunning pipelines it runs now
 * @param pipelineMetrics per-pipeline counts
 * @param cluster the worker's cluster (an addition to the ADR's shape: a coordinator
 * applies only its own cluster's heartbeats); {@code null} from older workers, read as
 * the default cluster
 * @param stateFailures {@code "state_failures": {"group/pipeline": "cannot open state
 * bucket ..."}}: why the state of a unit deployed here last could not be opened (an
 * addition too, shown in the topology); left out when empty
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkerHeartbeat(@JsonProperty("events_processed") long eventsProcessed,
        @JsonProperty("pipelines_running") int pipelinesRunning,
        @JsonProperty("pipeline_metrics") List<PipelineMetric> pipelineMetrics, @JsonProperty("cluster") String cluster,
        @JsonProperty("state_failures") @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> stateFailures) {

    /**
     * Copies the list and map (absent means empty).
     */
    public WorkerHeartbeat {
        pipelineMetrics = pipelineMetrics == null ? List.of() : List.copyOf(pipelineMetrics);
        stateFailures = stateFailures == null ? Map.of() : Map.copyOf(stateFailures);
    }

    /**
     * A heartbeat without state failures.
     * @param eventsProcessed events the worker applied since it started
     * @param pipelinesRunning pipelines it runs now
     * @param pipelineMetrics per-pipeline counts
     * @param cluster the worker's cluster
     */
    public WorkerHeartbeat(long eventsProcessed, int pipelinesRunning, List<PipelineMetric> pipelineMetrics,
            String cluster) {
        this(eventsProcessed, pipelinesRunning, pipelineMetrics, cluster, Map.of());
    }

    /**
     * One pipeline's counts in a heartbeat.
     *
     * @param pipelineName the pipeline
     * @param eventsIn events applied
     * @param eventsOut events emitted
     * @param group the pipeline's group (an addition to the ADR's shape, so the
     * coordinator can reconcile placement); {@code null} from older workers
     * @param epoch the placement epoch it runs with (an addition too: a newer leader
     * adopts it, an older placement is undeployed); {@code null} from older workers
     * @param partition the partition this entry counts, {@code null} (left out) for an
     * unpartitioned pipeline
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PipelineMetric(@JsonProperty("pipeline_name") String pipelineName,
            @JsonProperty("events_in") long eventsIn, @JsonProperty("events_out") long eventsOut,
            @JsonProperty("group") String group, @JsonProperty("epoch") Long epoch,
            @JsonProperty("partition") Integer partition) {

        /**
         * @return the unit it counts, {@code group/pipeline[/partition]} (its group must
         * be known)
         */
        @JsonIgnore
        public String unitKey() {
            return new PipelineUnit(group, pipelineName, partition == null ? Partitioning.NONE : partition).key();
        }

        /**
         * @return its placement epoch, 0 when an older worker did not say
         */
        @JsonIgnore
        public long epochOrZero() {
            return epoch == null ? 0 : epoch;
        }
    }
}
