package io.varpulis.cluster.coordinator;

import io.varpulis.pipeline.PipelineGroupSpec;

import java.time.Duration;
import java.util.List;

/**
 * What {@link GroupDeclarations} runs with ({@code varpulis.cluster.groups},
 * {@code max-partitions}, and the timing a removal waits on).
 *
 * @param configured the groups to declare at start when the store lacks them, each named
 * @param maxPartitions the largest {@code replicas} a group's pipeline may declare
 * @param commandTimeout how long a command waits for the worker's reply
 * @param heartbeatInterval how often a worker reports what it runs
 */
public record GroupSettings(List<PipelineGroupSpec> configured, int maxPartitions, Duration commandTimeout,
        Duration heartbeatInterval) {

    /**
     * @return how long a follower's purge waits for the leader to stop a removed group's
     * pipelines: the leader's undeploy command may take command-timeout, and the worker
     * reports the stop in its next heartbeat, so two intervals cover one lost in flight
     */
    public Duration stopWait() {
        return commandTimeout.plus(heartbeatInterval.multipliedBy(2));
    }

}
