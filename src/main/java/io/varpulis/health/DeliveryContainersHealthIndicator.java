package io.varpulis.health;

import io.varpulis.container.DeliveryContainer;
import io.varpulis.container.RunningContainers;
import io.varpulis.container.StopReason;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Health component {@code deliveryContainers}: DOWN while a delivery container (a route
 * edge, a listener, the heartbeats) holds an apply that ran past its apply timeout and
 * has not returned, or was stopped by an error (SPEC section 18: nothing stops in
 * silence); UP otherwise. Details per durable consumer: {@code unit}, {@code running},
 * {@code inFlight}, and when there is one, {@code hung} (the stream sequences of the
 * applies past the timeout, with {@code applyTimeout}) and {@code stopped} (the reason
 * and the error). In no health group by default: a service that should be restarted when
 * a listener's thread is stuck adds it to its liveness group.
 */
public class DeliveryContainersHealthIndicator extends AbstractHealthIndicator {

    private final RunningContainers containers;

    /**
     * @param containers the process's delivery containers
     */
    public DeliveryContainersHealthIndicator(RunningContainers containers) {
        super("delivery containers health check failed");
        this.containers = containers;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean down = false;
        Map<String, Object> details = new LinkedHashMap<>();
        for (DeliveryContainer container : containers.all()) {
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("unit", container.unit());
            detail.put("running", container.isRunning());
            detail.put("inFlight", container.inFlight());
            List<Long> hung = container.hungSequences();
            if (!hung.isEmpty()) {
                detail.put("hung", hung);
                detail.put("applyTimeout", container.applyTimeout().toString());
                down = true;
            }
            if (container.stopReason() == StopReason.ERROR) {
                detail.put("stopped", container.stopReason().name());
                detail.put("error", String.valueOf(container.stopCause()));
                down = true;
            }
            details.put(container.name(), detail);
        }
        (down ? builder.down() : builder.up()).withDetails(details);
    }

}
