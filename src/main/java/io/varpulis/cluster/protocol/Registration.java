package io.varpulis.cluster.protocol;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

import java.io.IOException;

/**
 * The registration exchange on {@code varpulis.cluster.register}, core request/reply
 * (SPEC sections 5 and 17). The shapes are the Rust Varpulis 0.11 node's, with additions
 * it ignores ({@code substrate}, {@code cluster}, {@code capabilities} in the request;
 * {@code reason} in the reply), so either side's worker registers with either side's
 * coordinator.
 */
public final class Registration {

    private Registration() {
    }

    /**
     * {@code {"worker_id","address","api_key","capacity":{"cpu_cores","pipelines_running","max_pipelines"}}}.
     *
     * @param workerId the worker's id
     * @param address where the worker can be reached (host:port), informative
     * @param apiKey the shared secret, or {@code null}
     * @param capacity what it can run
     * @param substrate the worker's substrate ({@code core} or {@code jetstream}), an
     * addition to the ADR's shape: a coordinator refuses a worker on another substrate;
     * {@code null} from older workers
     * @param cluster the worker's cluster name, an addition too: only that cluster's
     * coordinators answer; {@code null} from older workers, read as the default cluster
     * @param capabilities what the worker can run, an addition too; {@code null} from a
     * worker that says nothing (a Rust Varpulis worker, an older one of ours), which then
     * runs none of this cluster's pipelines
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Request(@JsonProperty("worker_id") String workerId, @JsonProperty("address") String address,
            @JsonProperty("api_key") String apiKey, @JsonProperty("capacity") Capacity capacity,
            @JsonProperty("substrate") String substrate, @JsonProperty("cluster") String cluster,
            @JsonProperty("capabilities") WorkerCapabilities capabilities) {
    }

    /**
     * @param cpuCores processors available to the worker's JVM
     * @param pipelinesRunning pipelines it runs now
     * @param maxPipelines most pipelines it accepts
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Capacity(@JsonProperty("cpu_cores") int cpuCores,
            @JsonProperty("pipelines_running") int pipelinesRunning, @JsonProperty("max_pipelines") int maxPipelines) {
    }

    /**
     * {@code {"worker_id","status":"registered","heartbeat_interval_secs":5}}, or a
     * refusal
     * {@code {"worker_id","status":"refused","error":"...","reason":"...","heartbeat_interval_secs":"refused:
     * ..."}}.
     * <p>
     * Why the refusal's {@code heartbeat_interval_secs} is a string: a Rust Varpulis 0.11
     * worker takes every reply that has a {@code worker_id} and a {@code status} for an
     * acceptance, whatever the status says, and never reads {@code error}. A number there
     * would make it heartbeat as if registered; a string makes its reading fail with the
     * string quoted in its log
     * ({@code NATS registration failed: deserialization failed: invalid type: string
     * "refused: invalid api_key ...", expected u64}), and it retries with its backoff:
     * the reason is on its side. Our worker reads only a number there.
     *
     * @param workerId the worker's id
     * @param status {@value #REGISTERED}, or {@value #REFUSED} with the error
     * @param heartbeatIntervalSecs the heartbeat interval the coordinator expects, whole
     * seconds (a {@link Long}); in a refusal written by this coordinator, the text a Rust
     * worker logs (see above); read back as a {@link Long}, or {@code null} when not a
     * number
     * @param error why registration was refused, or {@code null}
     * @param reason what was refused, with the error: {@value #SUBSTRATE} or
     * {@value #API_KEY} (retrying cannot help: the worker's settings must change),
     * {@value #WORKER_ID} or {@value #UNREADABLE}
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Reply(@JsonProperty("worker_id") String workerId, @JsonProperty("status") String status,
            @JsonProperty("heartbeat_interval_secs") @JsonDeserialize(
                    using = Seconds.class) Object heartbeatIntervalSecs,
            @JsonProperty("error") String error, @JsonProperty("reason") String reason) {

        /** The worker runs on another substrate than the coordinator. */
        public static final String SUBSTRATE = "substrate";

        /** The worker presented no or another api-key. */
        public static final String API_KEY = "api_key";

        /** The worker id is not a NATS token. */
        public static final String WORKER_ID = "worker_id";

        /** The request was not the registration JSON. */
        public static final String UNREADABLE = "unreadable";

        /** The status of a registration that was accepted. */
        public static final String REGISTERED = "registered";

        /** The status of a refusal. */
        public static final String REFUSED = "refused";

        /**
         * @param workerId the worker
         * @param heartbeatIntervalSecs the heartbeat interval the coordinator expects,
         * whole seconds
         * @return an acceptance
         */
        public static Reply registered(String workerId, long heartbeatIntervalSecs) {
            return new Reply(workerId, REGISTERED, heartbeatIntervalSecs, null, null);
        }

        /**
         * @param workerId the worker
         * @param reason what was refused
         * @param error why, in words with the fix
         * @return a refusal
         */
        public static Reply refused(String workerId, String reason, String error) {
            return new Reply(workerId == null ? "" : workerId, REFUSED, REFUSED + ": " + error, error, reason);
        }

        /**
         * @return whether the refusal is one that retrying with the same settings cannot
         * change
         */
        @JsonIgnore
        public boolean isFinal() {
            return SUBSTRATE.equals(reason) || API_KEY.equals(reason) || WORKER_ID.equals(reason);
        }
    }

    /**
     * Reads {@code heartbeat_interval_secs} as a number of seconds, and anything else (a
     * refusal's text) as {@code null}.
     */
    static final class Seconds extends JsonDeserializer<Long> {

        @Override
        public Long deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT) {
                return parser.getLongValue();
            }
            parser.skipChildren();
            return null;
        }

    }

}
