package io.varpulis.cluster.coordinator;

import io.varpulis.cluster.protocol.ControlPlaneBuckets;

/**
 * The group store did not confirm a write or a delete: NATS is unreachable, or the
 * bucket's stream is electing a leader. Nothing was declared or removed as far as the
 * caller can tell; retrying is safe (HTTP 503).
 */
public class GroupStoreUnavailableException extends RuntimeException {

    /**
     * @param what what was asked, for example {@code store pipeline group ssh}
     * @param cause the client's error
     */
    public GroupStoreUnavailableException(String what, Throwable cause) {
        super("cannot " + what + " in " + ControlPlaneBuckets.GROUPS + " (" + cause.getMessage() + "); NATS did not "
                + "confirm it: retry", cause);
    }

}
