package io.varpulis.cluster.worker;

import java.time.Duration;

/**
 * The worker's cluster, limits and timing ({@code varpulis.cluster.*}), as its parts
 * receive them.
 *
 * @param clusterName the cluster this worker belongs to, a NATS token
 * @param heartbeatInterval how often it publishes its heartbeat
 * @param commandTimeout how long a request to the coordinator waits for its reply
 * @param maxPartitions the largest {@code replicas} a deployed pipeline may declare
 * @param drainTimeout how long shutdown waits for in-flight applies
 * @param workerLeaseTtl how long its id stays held without a renewal (JetStream)
 */
public record WorkerSettings(String clusterName, Duration heartbeatInterval, Duration commandTimeout, int maxPartitions,
        Duration drainTimeout, Duration workerLeaseTtl) {

}
