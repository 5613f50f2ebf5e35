package io.varpulis.autoconfigure.node;

import io.varpulis.cluster.node.ClusterRole;
import io.varpulis.pipeline.PipelineGroupSpec;
import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The cluster node settings, {@code varpulis.cluster.*} (SPEC section 2).
 * {@code VARPULIS_COORDINATOR_ID} and {@code VARPULIS_WORKER_ID} are read as aliases of
 * {@code coordinator-id} and {@code worker-id} (ADR-007).
 */
@ConfigurationProperties(prefix = "varpulis.cluster")
@Validated
public class ClusterProperties {

    /**
     * Whether this application is a cluster node. The jar's own application.yml turns it
     * on; a service that only wants the NATS substrate from this library leaves it off.
     */
    private boolean enabled;

    /** What this node runs: coordinator, worker, or standalone (both in one process). */
    private ClusterRole role = ClusterRole.STANDALONE;

    // Commands.DEFAULT_CLUSTER, the name older nodes are taken to have, written out so
    // that the configuration metadata shows it.
    /**
     * The cluster's name, a NATS token: coordinators and workers of one cluster share it.
     * It keys the leader lease and the stored groups, a coordinator answers only the
     * registrations and heartbeats of its own cluster, and it reports (WARN and the
     * {@code cluster} health details) any other cluster it finds in its NATS account. One
     * cluster per account is the production rule (SPEC section 9); a name per cluster
     * keeps them apart where that cannot be had.
     */
    private String name = "varpulis";

    /**
     * The coordinator's stable id (env {@code VARPULIS_COORDINATOR_ID}): names its
     * durable heartbeat consumer {@code hb_{id}}, so it must stay the same across
     * restarts and differ between coordinators. Required when a coordinator runs on
     * jetstream.
     */
    private String coordinatorId;

    /**
     * This worker's id (env {@code VARPULIS_WORKER_ID}), a NATS token: letters, digits,
     * {@code -} and {@code _}. Defaults to the host name, with other characters replaced
     * by {@code -}.
     */
    private String workerId;

    /** How often a worker publishes its heartbeat. */
    private Duration heartbeatInterval = Duration.ofSeconds(5);

    /**
     * A worker is unhealthy after this long without a heartbeat; older replayed
     * heartbeats are discarded.
     */
    private Duration heartbeatTimeout = Duration.ofSeconds(15);

    /**
     * How long a worker's shutdown waits for in-flight applies to finish and ack before
     * it closes.
     */
    private Duration drainTimeout = Duration.ofSeconds(20);

    /**
     * Shared secret a worker presents when it registers; registration is refused when it
     * differs.
     */
    private String apiKey;

    /** Most pipelines this worker accepts (its capacity in the registration). */
    @Min(1)
    private int maxPipelines = 32;

    /**
     * Largest {@code replicas} (partitions, SPEC section 11) a pipeline may declare; each
     * partition is a durable consumer per input edge, a subject and a state bucket.
     * Coordinators and workers must agree on it.
     */
    @Min(1)
    private int maxPartitions = PipelineGroupSpec.DEFAULT_MAX_PARTITIONS;

    /**
     * Address the worker announces in its registration; defaults to the host name and
     * server port.
     */
    private String address;

    /**
     * First wait before a failed registration is retried; doubles each time up to
     * registration-max-backoff.
     */
    private Duration registrationBackoff = Duration.ofSeconds(1);

    /** Longest wait between registration attempts. */
    private Duration registrationMaxBackoff = Duration.ofSeconds(30);

    /** How long the coordinator waits for a worker's reply to a command. */
    private Duration commandTimeout = Duration.ofSeconds(5);

    /**
     * How long a pipeline's keyed state lives after its last update (JetStream key-value
     * TTL).
     */
    private Duration stateTtl = Duration.ofDays(1);

    /**
     * How long the leader's lease lives without a renewal (the max_age of the
     * {@code varpulis_leader} bucket, set when the bucket is created; an existing
     * bucket's own value wins and a different setting is logged). The leader renews it
     * every third of this; when it dies, another coordinator leads within this plus one
     * third.
     */
    private Duration leaderLeaseTtl = Duration.ofSeconds(6);

    /**
     * How long a worker id stays held without a renewal (the max_age of the
     * {@code varpulis_workers} bucket, set when the bucket is created). A live worker
     * renews it every heartbeat-interval; a second process with the same id waits,
     * unready, until the holder stops or this much time passed after its last renewal.
     */
    private Duration workerLeaseTtl = Duration.ofSeconds(15);

    /**
     * How long a worker must have been ready before the leader moves pipelines onto it to
     * even out the load (a new worker, or one that came back). Moves happen one at a time
     * and only when the most loaded ready worker runs at least two pipelines more than
     * the least loaded, so the placement never flaps.
     */
    private Duration rebalanceDelay = Duration.ofSeconds(30);

    /**
     * How long an unhealthy worker stays listed (and counted in
     * {@code varpulis_cluster_workers{status="unhealthy"}}) before the coordinator
     * forgets it; it registers again if it comes back later.
     */
    private Duration deadWorkerRetention = Duration.ofMinutes(10);

    /**
     * Whether a worker that the coordinator refuses for a reason retrying cannot fix
     * (another substrate, a wrong api-key) exits with status 78 after logging why. Off,
     * it stays unready with the reason in its {@code cluster} health details. Either way
     * it runs nothing.
     */
    private boolean exitOnRefusal = true;

    /**
     * Most keys of one pipeline's state kept in the pipeline's cache (its own writes and
     * the keys it read); a key evicted is read again from the bucket's stream leader.
     * Keys with a write not yet confirmed are never evicted.
     */
    @Min(1)
    private int stateCacheKeys = 100_000;

    /**
     * Pipeline groups the coordinator deploys at start, by group name (the {@code name}
     * defaults to the key):
     * {@code varpulis.cluster.groups.<name>.pipelines[i].name/processor.type/processor.settings.*}
     * and {@code .routes[i].from-pipeline/to-pipeline/event-types}.
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

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public Duration getLeaderLeaseTtl() {
        return leaderLeaseTtl;
    }

    public void setLeaderLeaseTtl(Duration leaderLeaseTtl) {
        this.leaderLeaseTtl = leaderLeaseTtl;
    }

    public Duration getWorkerLeaseTtl() {
        return workerLeaseTtl;
    }

    public void setWorkerLeaseTtl(Duration workerLeaseTtl) {
        this.workerLeaseTtl = workerLeaseTtl;
    }

    public Duration getRebalanceDelay() {
        return rebalanceDelay;
    }

    public void setRebalanceDelay(Duration rebalanceDelay) {
        this.rebalanceDelay = rebalanceDelay;
    }

    public Duration getDeadWorkerRetention() {
        return deadWorkerRetention;
    }

    public void setDeadWorkerRetention(Duration deadWorkerRetention) {
        this.deadWorkerRetention = deadWorkerRetention;
    }

    public boolean isExitOnRefusal() {
        return exitOnRefusal;
    }

    public void setExitOnRefusal(boolean exitOnRefusal) {
        this.exitOnRefusal = exitOnRefusal;
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

    public int getMaxPartitions() {
        return maxPartitions;
    }

    public void setMaxPartitions(int maxPartitions) {
        this.maxPartitions = maxPartitions;
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

    public int getStateCacheKeys() {
        return stateCacheKeys;
    }

    public void setStateCacheKeys(int stateCacheKeys) {
        this.stateCacheKeys = stateCacheKeys;
    }

    public Map<String, PipelineGroupSpec> getGroups() {
        return groups;
    }

    public void setGroups(Map<String, PipelineGroupSpec> groups) {
        this.groups = groups;
    }

}
