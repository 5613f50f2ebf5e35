package io.varpulis.cluster.node;

import java.time.Duration;

/**
 * A cluster's heartbeat timing ({@code varpulis.cluster.heartbeat-interval} and
 * {@code heartbeat-timeout}, SPEC section 7): coordinators and workers must agree on it.
 *
 * @param interval how often a worker publishes its heartbeat
 * @param timeout how long without a heartbeat before a worker is unhealthy; longer than
 * {@code interval}
 */
public record HeartbeatSettings(Duration interval, Duration timeout) {

}
