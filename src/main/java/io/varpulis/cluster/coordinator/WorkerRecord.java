package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.cluster.protocol.WorkerHeartbeat;

import java.time.Instant;

/**
 * What the coordinator knows of one worker, as the operator API shows it
 * ({@code GET /api/v1/cluster/workers}).
 *
 * @param workerId the worker's id
 * @param address its announced address
 * @param status {@code ready} or {@code unhealthy} (no heartbeat for heartbeat-timeout)
 * @param capacity what it announced at registration
 * @param registeredAt when it last registered
 * @param lastHeartbeat when its last fresh heartbeat was applied, or {@code null}
 * @param heartbeat the last heartbeat's content, or {@code null}
 * @param statusSince when it entered its status (ready: when it last became ready;
 * unhealthy: when its heartbeats were found missing)
 */
public record WorkerRecord(@JsonProperty("worker_id") String workerId, @JsonProperty("address") String address,
        @JsonProperty("status") String status, @JsonProperty("capacity") Registration.Capacity capacity,
        @JsonProperty("registered_at") Instant registeredAt, @JsonProperty("last_heartbeat") Instant lastHeartbeat,
        @JsonProperty("heartbeat") WorkerHeartbeat heartbeat, @JsonProperty("status_since") Instant statusSince) {

    /** A worker that heartbeats. */
    public static final String READY = "ready";

    /** A worker whose heartbeats stopped for longer than heartbeat-timeout. */
    public static final String UNHEALTHY = "unhealthy";

    /**
     * @return {@code true} when the worker can take pipelines
     */
    @JsonIgnore
    public boolean isReady() {
        return READY.equals(status);
    }
}
