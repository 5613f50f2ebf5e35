package io.varpulis.cluster;

import com.fasterxml.jackson.annotation.JsonIgnore;
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
     * @param cluster   the worker's cluster name, an addition too: only that cluster's coordinators answer;
     *                  {@code null} from older workers, read as the default cluster
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Request(@JsonProperty("worker_id") String workerId,
                          @JsonProperty("address") String address,
                          @JsonProperty("api_key") String apiKey,
                          @JsonProperty("capacity") Capacity capacity,
                          @JsonProperty("substrate") String substrate,
                          @JsonProperty("cluster") String cluster) {
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
     * @param reason                what was refused, with the error: {@value #SUBSTRATE} or {@value #API_KEY}
     *                              (retrying cannot help: the worker's settings must change), {@value #WORKER_ID}
     *                              or {@value #UNREADABLE}
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Reply(@JsonProperty("worker_id") String workerId,
                        @JsonProperty("status") String status,
                        @JsonProperty("heartbeat_interval_secs") Long heartbeatIntervalSecs,
                        @JsonProperty("error") String error,
                        @JsonProperty("reason") String reason) {

        /** The worker runs on another substrate than the coordinator. */
        public static final String SUBSTRATE = "substrate";
        /** The worker presented no or another api-key. */
        public static final String API_KEY = "api_key";
        /** The worker id is not a NATS token. */
        public static final String WORKER_ID = "worker_id";
        /** The request was not the registration JSON. */
        public static final String UNREADABLE = "unreadable";

        /**
         * @param workerId the worker
         * @param reason   what was refused
         * @param error    why, in words with the fix
         * @return a refusal
         */
        static Reply refused(String workerId, String reason, String error) {
            return new Reply(workerId, null, null, error, reason);
        }

        /**
         * @return whether the refusal is one that retrying with the same settings cannot change
         */
        @JsonIgnore
        public boolean isFinal() {
            return SUBSTRATE.equals(reason) || API_KEY.equals(reason) || WORKER_ID.equals(reason);
        }
    }
}
