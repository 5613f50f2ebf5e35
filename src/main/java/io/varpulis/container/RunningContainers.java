package io.varpulis.container;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The delivery containers a process runs (route edges, listeners, heartbeats), and those
 * an error stopped, which stay listed so that the health shows them
 * ({@link StopReason#ERROR}). Thread-safe.
 */
public final class RunningContainers {

    private final Set<DeliveryContainer> containers = ConcurrentHashMap.newKeySet();

    void add(DeliveryContainer container) {
        // A container made again for a durable (a listener restarted, a pipeline
        // re-placed) replaces the one an error stopped.
        containers.removeIf(earlier -> earlier.name().equals(container.name()) && earlier.stopReason() != null);
        containers.add(container);
    }

    void remove(DeliveryContainer container) {
        containers.remove(container);
    }

    /**
     * @return the containers consuming now, and those an error stopped
     */
    public List<DeliveryContainer> all() {
        return List.copyOf(containers);
    }

}
