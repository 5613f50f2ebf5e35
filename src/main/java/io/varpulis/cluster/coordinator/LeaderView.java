package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;

/**
 * The answer of {@code GET /api/v1/cluster/leader}, the same on every coordinator of a
 * cluster (SPEC section 9):
 * {@code {"leader": "coord-1", "epoch": 42, "cluster": "varpulis", "expires_at": "...", "this_node": "coord-2",
 * "this_node_leads": false, "lease_ttl_ms": 10000}}.
 *
 * @param leader the leading coordinator's id, {@code null} while none holds the lease
 * @param epoch its epoch (0 while none leads)
 * @param cluster the cluster name
 * @param expiresAt when its lease lapses without a renewal, as last seen
 * @param thisNode the answering coordinator
 * @param thisNodeLeads whether it is the leader
 * @param leaseTtlMs the lease TTL, ms (0: the coordinator leads alone, core substrate)
 */
public record LeaderView(@JsonProperty("leader") String leader, @JsonProperty("epoch") long epoch,
        @JsonProperty("cluster") String cluster, @JsonProperty("expires_at") Instant expiresAt,
        @JsonProperty("this_node") String thisNode, @JsonProperty("this_node_leads") boolean thisNodeLeads,
        @JsonProperty("lease_ttl_ms") long leaseTtlMs) {
}
