package io.varpulis.health;

import java.time.Duration;
import java.time.Instant;

/**
 * How long a transient JetStream problem (a stream leader election, the connected server
 * briefly away from its leaders) may last before the {@code jetstream} component turns
 * DOWN: {@code
 * varpulis.nats.jetstream.leader-reach.down-after}. During a normal election every node
 * sees the same problem at once; turning them all unready together would defeat
 * PodDisruptionBudgets (issue 25). Not thread-safe: one refresh thread uses it.
 */
final class ProblemGrace {

    private final Duration downAfter;

    private Instant since;

    /**
     * @param downAfter how long a problem lasts before it counts; {@link Duration#ZERO}
     * counts it at once
     */
    ProblemGrace(Duration downAfter) {
        this.downAfter = downAfter;
    }

    /**
     * @param now when the problem was seen
     * @return when the current run of problems began (now, on the first one)
     */
    Instant seen(Instant now) {
        if (since == null) {
            since = now;
        }
        return since;
    }

    /**
     * @param now the time of the check
     * @return {@code true} when a run of problems has lasted {@code down-after} or longer
     */
    boolean elapsed(Instant now) {
        return since != null && Duration.between(since, now).compareTo(downAfter) >= 0;
    }

    /** A check found no transient problem: the next one starts a new run. */
    void cleared() {
        since = null;
    }

}
