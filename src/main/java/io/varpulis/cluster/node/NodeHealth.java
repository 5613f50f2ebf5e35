package io.varpulis.cluster.node;

import java.util.Map;
import java.util.Optional;

/**
 * What one role of a node shows in the {@code cluster} health component
 * ({@link ClusterHealthIndicator}): the coordinator's and the worker's details, each
 * under its role's name.
 */
public interface NodeHealth {

    /**
     * @return the role's details, as JSON object fields
     */
    Map<String, Object> healthDetails();

    /**
     * @return why this role makes the node unready (DOWN), empty while it is or is
     * becoming part of the cluster
     */
    default Optional<String> unreadyReason() {
        return Optional.empty();
    }

}
