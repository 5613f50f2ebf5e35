package io.varpulis.cluster.coordinator;

import java.time.Duration;

/**
 * Decides whether a worker silent for a while is still alive
 * ({@link ClusterState#expire(long, LivenessVerdict)}).
 */
@FunctionalInterface
public interface LivenessVerdict {

    /**
     * @param workerId a ready worker
     * @param silence how long since its last sign of life (heartbeat or registration),
     * monotonic
     * @return {@code true} to keep it ready
     */
    boolean alive(String workerId, Duration silence);

    /**
     * Called by {@link ClusterState#expire(long, LivenessVerdict)} before it asks about
     * each ready worker, so that a verdict that reads the server can bound its reads per
     * health check.
     */
    default void beginRound() {
    }

    /**
     * @param timeout heartbeat-timeout
     * @return the plain rule: alive while silent for no longer than the timeout
     */
    static LivenessVerdict within(Duration timeout) {
        return (workerId, silence) -> silence.compareTo(timeout) <= 0;
    }

}
