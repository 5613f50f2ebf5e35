package io.varpulis.cluster;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The registration exchange on {@code varpulis.cluster.register}, core request/reply (SPEC section 5).
 */
public final class Registration {

    private Registration() {
    }

    /**
     * {@code {"worker_id","address","api_key","capacity":{"cpu_cores","pipelines_running","max_pipelines"}}}.
     *
     * @param workerId the worker's id
     * @param address  where the worker can be reached (host:port), informative
     * @param apiKey   the shared secret, or {@code null}
     * @param capacity what it can run
     * @param substrate the worker's substrate ({@code core} or {@code jetstream}), an addition to the ADR's shape:
     *                  a coordinator refuses a worker on another substrate; {@code null} from older workers
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Request(@JsonProperty("worker_id") String workerId,
                          @JsonProperty("address") String address,
                          @JsonProperty("api_key") String apiKey,
                          @JsonProperty("capacity") Capacity capacity,
                          @JsonProperty("substrate") String substrate) {
    }

    /**
     * @param cpuCores         processors available to the worker's JVM
     * @param pipelinesRunning pipelines it runs now
     * @param maxPipelines     most pipelines it accepts
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Capacity(@JsonProperty("cpu_cores") int cpuCores,
                           @JsonProperty("pipelines_running") int pipelinesRunning,
                           @JsonProperty("max_pipelines") int maxPipelines) {
    }

    /**
     * {@code {"worker_id","status":"registered","heartbeat_interval_secs":5}}, or {@code {"error":"..."}}.
     *
     * @param workerId              the worker's id
     * @param status                {@code registered}
     * @param heartbeatIntervalSecs the heartbeat interval the coordinator expects, seconds
     * @param error                 why registration was refused, or {@code null}
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Reply(@JsonProperty("worker_id") String workerId,
                        @JsonProperty("status") String status,
                        @JsonProperty("heartbeat_interval_secs") Long heartbeatIntervalSecs,
                        @JsonProperty("error") String error) {
    }
}
