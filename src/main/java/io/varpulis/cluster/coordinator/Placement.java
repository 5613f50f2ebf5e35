package io.varpulis.cluster.coordinator;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;

/**
 * Where one pipeline is placed.
 *
 * @param worker the worker it is placed on
 * @param epoch the placement epoch: larger for every later placement of any pipeline,
 * across leaders (the leader's epoch in the upper bits, a counter of its placements
 * below), carried by the deploy command down to the pipeline's state, which a writer with
 * a smaller epoch may no longer overwrite (SPEC section 9)
 * @param state {@value #DEPLOYING} (the deploy command is on its way) or
 * {@value #RUNNING} (the worker confirmed it, or reported it in a heartbeat)
 * @param since when it entered that state
 */
public record Placement(@JsonProperty("worker") String worker, @JsonProperty("epoch") long epoch,
        @JsonProperty("state") String state, @JsonProperty("since") Instant since) {

    /** The deploy command was sent; no answer yet. */
    public static final String DEPLOYING = "deploying";

    /** The worker runs it. */
    public static final String RUNNING = "running";

    /**
     * @return whether the worker confirmed that it runs the pipeline
     */
    @JsonIgnore
    public boolean isRunning() {
        return RUNNING.equals(state);
    }

    /**
     * @param at when
     * @return this placement, confirmed
     */
    Placement running(Instant at) {
        return isRunning() ? this : new Placement(worker, epoch, RUNNING, at);
    }
}
