package io.varpulis.cluster;

import io.varpulis.pipeline.PipelineGroupSpec;
import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The cluster node settings, {@code varpulis.cluster.*} (SPEC section 2). {@code VARPULIS_COORDINATOR_ID} and
 * {@code VARPULIS_WORKER_ID} are read as aliases of {@code coordinator-id} and {@code worker-id} (ADR-007).
 */
@ConfigurationProperties(prefix = "varpulis.cluster")
@Validated
public class ClusterProperties {

    /**
     * Whether this application is a cluster node. The jar's own application.yml turns it on; a service that only
     * wants the NATS substrate from this library leaves it off.
     */
    private boolean enabled;

    /** What this node runs: coordinator, worker, or standalone (both in one process). */
    private ClusterRole role = ClusterRole.STANDALONE;

    /**
     * The coordinator's stable id (env {@code VARPULIS_COORDINATOR_ID}): names its durable heartbeat consumer
     * {@code hb_{id}}, so it must stay the same across restarts and differ between coordinators. Required when a
     * coordinator runs on jetstream.
     */
    private String coordinatorId;

    /**
     * This worker's id (env {@code VARPULIS_WORKER_ID}), a NATS token: letters, digits, {@code -} and {@code _}.
     * Defaults to the host name, with other characters replaced by {@code -}.
     */
    private String workerId;

    /** How often a worker publishes its heartbeat. */
    private Duration heartbeatInterval = Duration.ofSeconds(5);

    /** A worker is unhealthy after this long without a heartbeat; older replayed heartbeats are discarded. */
    private Duration heartbeatTimeout = Duration.ofSeconds(15);

    /** How long a worker's shutdown waits for in-flight applies to finish and ack before it closes. */
    private Duration drainTimeout = Duration.ofSeconds(20);

    /** Shared secret a worker presents when it registers; registration is refused when it differs. */
    private String apiKey;

    /** Most pipelines this worker accepts (its capacity in the registration). */
    @Min(1)
    private int maxPipelines = 32;

    /** Address the worker announces in its registration; defaults to the host name and server port. */
    private String address;

    /** First wait before a failed registration is retried; doubles each time up to registration-max-backoff. */
    private Duration registrationBackoff = Duration.ofSeconds(1);

    /** Longest wait between registration attempts. */
    private Duration registrationMaxBackoff = Duration.ofSeconds(30);

    /** How long the coordinator waits for a worker's reply to a command. */
    private Duration commandTimeout = Duration.ofSeconds(5);

    /** How long a pipeline's keyed state lives after its last update (JetStream key-value TTL). */
    private Duration stateTtl = Duration.ofDays(1);

    /**
     * Pipeline groups the coordinator deploys at start, by group name (the {@code name} defaults to the key):
     * {@code varpulis.cluster.groups.<name>.pipelines[i].name/processor.type/processor.settings.*} and
     * {@code .routes[i].from-pipeline/to-pipeline/event-types}.
     */
    private Map<String, PipelineGroupSpec> groups = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public ClusterRole getRole() {
        return role;
    }

    public void setRole(ClusterRole role) {
        this.role = role;
    }

    public String getCoordinatorId() {
        return coordinatorId;
    }

    public void setCoordinatorId(String coordinatorId) {
        this.coordinatorId = coordinatorId;
    }

    public String getWorkerId() {
        return workerId;
    }

    public void setWorkerId(String workerId) {
        this.workerId = workerId;
    }

    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    public Duration getHeartbeatTimeout() {
        return heartbeatTimeout;
    }

    public void setHeartbeatTimeout(Duration heartbeatTimeout) {
        this.heartbeatTimeout = heartbeatTimeout;
    }

    public Duration getDrainTimeout() {
        return drainTimeout;
    }

    public void setDrainTimeout(Duration drainTimeout) {
        this.drainTimeout = drainTimeout;
    }

    public String getApiKey() {
        return apiKey;
    }

    public void setApiKey(String apiKey) {
        this.apiKey = apiKey;
    }

    public int getMaxPipelines() {
        return maxPipelines;
    }

    public void setMaxPipelines(int maxPipelines) {
        this.maxPipelines = maxPipelines;
    }

    public String getAddress() {
        return address;
    }

    public void setAddress(String address) {
        this.address = address;
    }

    public Duration getRegistrationBackoff() {
        return registrationBackoff;
    }

    public void setRegistrationBackoff(Duration registrationBackoff) {
        this.registrationBackoff = registrationBackoff;
    }

    public Duration getRegistrationMaxBackoff() {
        return registrationMaxBackoff;
    }

    public void setRegistrationMaxBackoff(Duration registrationMaxBackoff) {
        this.registrationMaxBackoff = registrationMaxBackoff;
    }

    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    public Duration getStateTtl() {
        return stateTtl;
    }

    public void setStateTtl(Duration stateTtl) {
        this.stateTtl = stateTtl;
    }

    public Map<String, PipelineGroupSpec> getGroups() {
        return groups;
    }

    public void setGroups(Map<String, PipelineGroupSpec> groups) {
        this.groups = groups;
    }
}
