package io.varpulis.cluster.coordinator;

import io.varpulis.cluster.node.HeartbeatSettings;

import java.time.Duration;

/**
 * The coordinator's cluster and timing ({@code varpulis.cluster.*}), as its parts receive
 * them.
 *
 * @param clusterName the cluster this coordinator answers for, a NATS token
 * @param heartbeats the workers' heartbeat timing
 * @param commandTimeout how long a command waits for the worker's reply
 * @param rebalanceDelay how long a worker is ready before pipelines move onto it
 * @param deadWorkerRetention how long an unhealthy worker stays listed
 */
public record CoordinatorSettings(String clusterName, HeartbeatSettings heartbeats, Duration commandTimeout,
        Duration rebalanceDelay, Duration deadWorkerRetention) {

}
